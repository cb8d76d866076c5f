import { MAX_GROUPS, OTHER_GROUPS, recordGroups } from '../src/dlq/inspect';
import { HEADERS } from '../src/naming/headers';
import { dlqRecord } from './console/fake-dlq';

describe('the groups of inspect and the console, tallied one record at a time', () => {
  it('keep at most a thousand groups apart however many error names producers invent, and count the rest together', () => {
    const groups = recordGroups({ ids: false });
    for (let i = 0; i < 5000; i++) groups.add(dlqRecord(0, i, { key: 'k', value: 'v', headers: { [HEADERS.errorClass]: `Error${i}`, [HEADERS.originalTopic]: 'orders' } }));
    const tallied = groups.groups();
    expect(tallied).toHaveLength(MAX_GROUPS + 1);
    expect(tallied.reduce((n, g) => n + g.count, 0)).toBe(5000);
    expect(tallied[0]).toMatchObject({ errorClass: OTHER_GROUPS, count: 4000 });
  });

  it('cut an error name or example message of a megabyte to a line', () => {
    const groups = recordGroups({ ids: false });
    groups.add(dlqRecord(0, 1, { key: 'k', value: 'v', headers: { [HEADERS.errorClass]: 'E'.repeat(2 ** 20), [HEADERS.errorMessage]: 'm'.repeat(2 ** 20) } }));
    const [group] = groups.groups();
    expect(group!.errorClass.length).toBeLessThan(1000);
    expect(group!.example.length).toBeLessThan(1000);
  });

  it('carry on from a copy without touching the original', () => {
    const groups = recordGroups({ ids: false });
    groups.add(dlqRecord(0, 1, { key: 'k', value: 'v', headers: { [HEADERS.errorClass]: 'E' } }));
    const copy = groups.copy();
    copy.add(dlqRecord(0, 2, { key: 'k', value: 'v', headers: { [HEADERS.errorClass]: 'E' } }));
    expect([groups.groups()[0]!.count, copy.groups()[0]!.count]).toEqual([1, 2]);
  });
});
