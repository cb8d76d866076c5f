import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { emitRunbooks } from '../src/emitters/runbook';
import { runbookTemplates } from '../src/emitters/runbook/templates';
import { ALERTS } from '../src/naming';
import { expectGolden } from './helpers/golden';
import { headingAnchors, inPageLinks } from './helpers/markdown';
import { REPO_ROOT } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';

const generated = path.join(REPO_ROOT, 'generated');
const runbook = (consumer: string) => readFileSync(path.join(generated, 'runbooks', `${consumer}.md`), 'utf8');

describe('runbook links from the generated alerts', () => {
  const rulesFiles = readdirSync(path.join(generated, 'prometheus')).filter((f) => f.endsWith('.rules.yml'));
  const urls = [...new Set(rulesFiles.flatMap((file) =>
    parse(readFileSync(path.join(generated, 'prometheus', file), 'utf8')).groups.flatMap((g: { rules: { annotations: { runbook_url: string } }[] }) =>
      g.rules.map((r) => r.annotations.runbook_url),
    ),
  ))];

  it('finds the alerts of both example consumers', () => {
    expect(urls.length).toBeGreaterThanOrEqual(10);
  });

  it.each(urls.map((u) => [u]))('resolves %s to a heading of a generated runbook, by GitHub anchor rules', (url) => {
    const [, file, fragment] = /\/([^/]+\.md)#(.+)$/.exec(url)!;
    const page = readFileSync(path.join(generated, 'runbooks', file!), 'utf8');
    expect(headingAnchors(page)).toContain(fragment);
  });
});

describe('the runbook of billing-order-confirmed', () => {
  const page = runbook('billing-order-confirmed');

  it('has a section per alert with what it means, causes, checks and the fix', () => {
    for (const alert of Object.values(ALERTS)) {
      const section = page.split(`\n## ${alert}\n`)[1]!.split('\n## ')[0]!;
      for (const part of ['**Fires when**', '**What it means.**', '**Likely causes.**', '**First checks.**', '**Fix.**']) {
        expect(section).toContain(part);
      }
    }
  });

  it('names owner, on-call, topics with partitions and retention, groups, principals and ACLs', () => {
    expect(page).toContain('| owning team | billing |');
    expect(page).toContain('| on call | #billing-oncall |');
    expect(page).toContain('| tier 2 | `orders.confirmed.retry.10m` | 12 | 7d | 10m |');
    expect(page).toContain('| DLQ | `orders.confirmed.dlq` | 12 | 28d | — |');
    expect(page).toContain('| `User:orders-replay` | Write | Topic `orders.confirmed` | publish replayed records back to the original topic |');
    expect(page).toContain('```mermaid\nflowchart LR');
  });

  it('gives the real DLQ commands, a dry run first, and a kcat line that prints headers', () => {
    expect(page).toContain('krt dlq inspect billing-order-confirmed\n');
    expect(page.indexOf('--dry-run')).toBeLessThan(page.indexOf('krt dlq replay billing-order-confirmed --error-class <class> --limit 100 --rate 10\n'));
    expect(page).toContain('krt dlq discard billing-order-confirmed --ids <partition>:<offset>,... --reason "<why it cannot be saved>" --by "<your name>"');
    expect(page).toMatch(/kcat -F monitor\.kcat\.conf -C -t orders\.confirmed\.dlq .*headers: %h/);
  });

  it('says what its ordering strategy means', () => {
    expect(page).toContain('Strategy: **park-by-key**.');
    expect(page).toContain('later records of the same key are parked behind it');
  });

  it('has no dangling in-page links', () => {
    const anchors = headingAnchors(page);
    for (const link of inPageLinks(page)) expect(anchors).toContain(link);
  });
});

describe('runbooks of other kinds of consumer', () => {
  const inPlaceOnly = compile(
    aTopology({ naming: 'spring', consumers: [aConsumer({ ordering: 'in-place-only', ladder: undefined, headers: 'x+spring', criticality: 'analytics' })] }),
  ).model!;

  it('leaves out the tier alert when a consumer has no tiers', () => {
    const [page] = emitRunbooks(inPlaceOnly);
    expect(page!.content).not.toContain('## KafkaRetryTierStuck');
    expect(page!.content).toContain('Strategy: **in-place-only**.');
    expect(page!.content).toContain('kafka_dlt-original-topic');
    for (const link of inPageLinks(page!.content)) expect(headingAnchors(page!.content)).toContain(link);
  });

  it('matches the golden runbook of an in-place-only consumer with Spring headers', () => {
    const [page, index] = emitRunbooks(inPlaceOnly);
    expectGolden('runbooks/in-place-only.md', page!.content);
    expectGolden('runbooks/README.md', index!.content);
  });

  it('lists every consumer in the index', () => {
    const index = readFileSync(path.join(generated, 'runbooks', 'README.md'), 'utf8');
    expect(index).toContain('| [analytics-orders](analytics-orders.md) | analytics | analytics | #analytics-oncall | analytics | `orders.confirmed` |');
    expect(index).toContain('| [billing-order-confirmed](billing-order-confirmed.md) | orders | billing | #billing-oncall | money | `orders.confirmed` |');
  });
});

describe('runbook templates', () => {
  it('fail on a missing field instead of printing nothing', () => {
    expect(() => runbookTemplates().page({ name: 'x' })).toThrow(/not defined/);
  });
});
