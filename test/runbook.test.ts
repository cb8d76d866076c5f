import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { emitRunbooks } from '../src/emitters/runbook';
import { runbookTemplates } from '../src/emitters/runbook/templates';
import { ALERTS } from '../src/alerts';
import { KAFKA_ENV } from '../src/naming';
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
    expect(page).toContain('| `User:orders-replay` | Write | Topic `orders.confirmed.retry.1m` | replay to this consumer only: through its first tier, due at once |');
    expect(page).not.toContain('| `User:orders-replay` | Write | Topic `orders.confirmed.retry.10m`');
    expect(page).toContain('```mermaid\nflowchart LR');
  });

  it('gives the real DLQ commands, a dry run first, and a kcat line that prints headers', () => {
    expect(page).toContain('krt dlq inspect billing-order-confirmed\n');
    expect(page.indexOf('--dry-run')).toBeLessThan(page.indexOf('krt dlq replay billing-order-confirmed --error-class <error-name> --limit 100 --rate 10\n'));
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

describe('runbooks that are right at 3 a.m.', () => {
  const pages = readdirSync(path.join(generated, 'runbooks')).filter((f) => f !== 'README.md').map((f) => readFileSync(path.join(generated, 'runbooks', f), 'utf8'));
  const parkByKey = runbook('billing-order-confirmed');
  const managedMain = emitRunbooks(compile(aTopology({ consumers: [aConsumer({ topic: { name: 'orders.confirmed', partitions: 12, managed: true } })] })).model!)[0]!.content;

  it('say that a parked key is released when its record reaches the DLQ, and that tier records cannot be replayed', () => {
    expect(parkByKey).toContain('the key is released when that\nrecord succeeds or reaches the DLQ');
    expect(parkByKey).toContain('tier records cannot be replayed or discarded');
    expect(parkByKey).not.toMatch(/replaying or\s+discarding it releases the key/);
  });

  it('warn that replaying a park-by-key DLQ record applies it after later records of its key, and ask a money consumer for a decision', () => {
    expect(parkByKey).toContain('applies it **after** the later records of that key');
    expect(parkByKey).toContain('This consumer handles money: decide per record');
    expect(parkByKey).toContain('Ordering too: a replayed record is applied after the later records of its key');
    expect(runbook('analytics-orders')).not.toContain('Ordering too');
  });

  it('state what a crash during replay does as the replay tool does it: at most the records of the step in flight again', () => {
    for (const page of pages) {
      expect(page).toContain('a crash mid-way loses\nnothing, and replays again at most the records of the step in flight, one second\'s worth\nat `--rate`');
      expect(page).not.toContain('does not replay twice');
    }
  });

  it('say where to run krt and every connection variable it reads, with kcat settings for TLS or not and every mechanism', () => {
    for (const page of pages) {
      expect(page).toContain('in a checkout of the repository that holds');
      expect(page).toContain('after `npm ci`');
      for (const variable of Object.values(KAFKA_ENV)) expect(page).toContain(`\`${variable}\``);
      expect(page).toContain('SASL_SSL for a TLS listener, SASL_PLAINTEXT for a plaintext one');
      expect(page).toContain('PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512');
    }
  });

  it("print no Kafka shell tool that the monitor's ACLs would refuse", () => {
    for (const page of pages) expect(page).not.toMatch(/kafka-(console-consumer|consumer-groups)\.sh --/);
  });

  it('leave only placeholders that name what to put there, and no "tier(s)"', () => {
    for (const page of [...pages, managedMain]) {
      expect(page).not.toContain('(s)');
      const placeholders = new Set([...page.matchAll(/<[^>\s/!-][^>]*>/g)].map((m) => m[0]).filter((p) => !p.startsWith('<br')));
      expect([...placeholders].filter((p) => /[A-Z]{2}|…/.test(p))).toEqual([]);
    }
  });

  it('name, for a park-by-key consumer, the one group that reads the main topic and the tiers when a tier is stuck', () => {
    const stuck = parkByKey.split('\n## KafkaRetryTierStuck\n')[1]!.split('\n## ')[0]!;
    expect(stuck).toContain('The consumer (group `billing-order-confirmed`, which reads the main topic and the tiers) does not');
    expect(stuck).toContain('krt lag billing-order-confirmed');
    expect(stuck).not.toContain('retry consumer');
  });

  it('tell operators to grow the tiers and the DLQ before an unmanaged main topic grows', () => {
    expect(parkByKey).toContain('If someone adds partitions to\nit, grow its tiers and DLQ first');
    expect(managedMain).toContain('change them in `topologies/orders.ts`\nfor the main topic, the tiers and the DLQ together');
  });

  it('keep "classification" (the error_class label) and "error name" (the x-error-class header) apart, never "error class"', () => {
    for (const page of pages) {
      expect(page).toContain('the **classification** of an error');
      expect(page).toContain('the **error name** is the error\'s own name or code');
      expect(page.toLowerCase()).not.toMatch(/error class(es)?\b(?!-)/);
    }
  });
});

describe('runbook templates', () => {
  it('fail on a missing field instead of printing nothing', () => {
    expect(() => runbookTemplates().page({ name: 'x' })).toThrow(/not defined/);
  });
});
