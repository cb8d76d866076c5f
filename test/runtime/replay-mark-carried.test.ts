import { HEADERS } from '../../src/naming/headers';
import { buildDestinationRecord } from '../../src/runtime/destination-record';
import type { RoutedDestination } from '../../src/runtime/destination-record';
import type { RawHeaders } from '../../src/runtime/headers';
import { billingDescriptor } from './descriptor';

const d = billingDescriptor({});
const onward: RoutedDestination[] = [
  { kind: 'tier', tier: d.tiers[1]!, attempt: 3, dueAt: 5_000 },
  { kind: 'dlq', attempt: 3, reason: 'retries-exhausted' },
];
const routed = (topic: string, headers: RawHeaders, destination: RoutedDestination) =>
  buildDestinationRecord(d, { topic, partition: 0, message: { key: Buffer.from('k'), value: null, headers, offset: '4', timestamp: '1000' } }, new Error('503'), destination, { now: 1_000, includeStackTraces: false }).headers as RawHeaders;

describe('the replay mark of a record replayed into a tier', () => {
  it.each(onward)('stays on its copy routed on to the $kind, naming the same DLQ record', (destination) => {
    const headers = routed(d.tiers[0]!.topic, { [HEADERS.replayedFromDlq]: Buffer.from('billing.dlq/0:7'), [HEADERS.originalOffset]: '90' }, destination);
    expect(String(headers[HEADERS.replayedFromDlq])).toBe('billing.dlq/0:7');
  });

  it('is not written on the copy of a tier record that was never replayed', () => {
    expect(routed(d.tiers[0]!.topic, { [HEADERS.originalOffset]: '90' }, onward[0]!)[HEADERS.replayedFromDlq]).toBeUndefined();
  });

  it('is not carried from a main-topic record (a replay to the main topic is a new main record, judged as any other)', () => {
    expect(routed(d.mainTopic, { [HEADERS.replayedFromDlq]: 'billing.dlq/0:7' }, onward[0]!)[HEADERS.replayedFromDlq]).toBeUndefined();
  });
});
