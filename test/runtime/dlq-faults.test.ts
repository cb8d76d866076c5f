import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { decodeHandled, isHandled } from '../../src/runtime/dlq-handled';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble, RequestFailed } from './dlq-kafka-double';
import type { FaultOutcome, Operation } from './dlq-kafka-double';
import { recordEntries } from './audit-record-entries';

/** The process dies here: nothing after it runs, whatever it was doing. */
class Crash extends Error {}

const RATE = 4; // records per step: ten records are three steps
const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();

function dlqOfTen(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < 10; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `order-${i}`,
      value: `value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
  }
  return { consumer, double };
}

type Action = 'replay' | 'discard';

async function run(double: DlqKafkaDouble, consumer: ConsumerModel, action: Action): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    if (action === 'replay') await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: RATE, by: 'tester', clock });
    else await discardRecords(kafka, session, session.records, { reason: 'superseded', by: 'tester' });
  } finally {
    await session.close();
  }
}

/** What a user can see afterwards: each record's publishes and audit entries, and whether the replay group counts it handled. */
function observed(double: DlqKafkaDouble, consumer: ConsumerModel) {
  const count = (ids: string[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());
  const published = count(double.messages(consumer.tiers[0]!.name).map((m) => String(m.headers[HEADERS.replayedFromDlq]).split('/')[1]!));
  const audited = count(recordEntries(double, consumer.dlqAudit.name).map((m) => m.key!.toString()));
  const handled = new Set(
    double.messages(consumer.dlq.name)
      .filter((m) => {
        const c = double.commits.get(consumer.groups.replay)?.get(`${consumer.dlq.name}:${m.partition}`);
        return isHandled(decodeHandled(c && /^\d+$/.test(c.offset) ? BigInt(c.offset) : 0n, c?.metadata), m.offset);
      })
      .map((m) => `${m.partition}:${m.offset}`),
  );
  return { published, audited, handled };
}

/** Every request of a clean run, in order. */
async function operationsOf(action: Action): Promise<Operation[]> {
  const { consumer, double } = dlqOfTen();
  const seen: Operation[] = [];
  double.fault = (op) => void seen.push(op);
  await run(double, consumer, action);
  return seen;
}

const FAULTS = {
  refused: (): FaultOutcome => {
    throw new RequestFailed('refused');
  },
  'applied, then reported failed': (): FaultOutcome => 'applied-then-failed',
  crash: (): FaultOutcome => {
    throw new Crash('killed');
  },
};

describe.each<Action>(['replay', 'discard'])('krt dlq %s when any request fails or the process dies there, then runs again', (action) => {
  it('never commits a record unaudited, never audits one unpublished, and the rerun repeats at most the step in flight', async () => {
    const operations = await operationsOf(action);
    expect(operations.filter((o) => o.kind === 'commit').length).toBeGreaterThan(action === 'replay' ? 2 : 0);
    for (let at = 0; at < operations.length; at++) {
      for (const [fault, inject] of Object.entries(FAULTS)) {
        // A join either happens or not; an acknowledgement lost belongs to writes.
        if (operations[at]!.kind === 'join' && inject === FAULTS['applied, then reported failed']) continue;
        const { consumer, double } = dlqOfTen();
        let n = 0;
        double.fault = () => (n++ === at ? inject() : undefined);
        const where = `${fault} at request ${at + 1} (${JSON.stringify(operations[at])})`;
        const outcome = await run(double, consumer, action).then(() => 'resolved', () => 'rejected');
        expect({ where, outcome }).toEqual({ where, outcome: 'rejected' });

        // After the failure: what the audit log says happened, happened.
        const broken = observed(double, consumer);
        const audited = [...broken.audited.keys()];
        if (action === 'replay') expect({ where, auditedUnpublished: audited.filter((id) => !broken.published.has(id)) }).toEqual({ where, auditedUnpublished: [] });
        expect({ where, handledUnaudited: [...broken.handled].filter((id) => !broken.audited.has(id)) }).toEqual({ where, handledUnaudited: [] });

        double.fault = () => {};
        await run(double, consumer, action);
        const { published, audited: entries, handled } = observed(double, consumer);
        const all = double.messages(consumer.dlq.name).map((m) => `${m.partition}:${m.offset}`).sort();
        expect({ where, handled: [...handled].sort(), audited: [...entries.keys()].sort() }).toEqual({ where, handled: all, audited: all });
        if (action === 'replay') expect({ where, published: [...published.keys()].sort() }).toEqual({ where, published: all });
        // Repeated: only records of the one step in flight, once more each.
        const repeated = [...new Set([...published, ...entries].filter(([, times]) => times > 1).map(([id]) => id))];
        const stepOf = (id: string) => Math.floor(all.findIndex((a) => a === id) / (action === 'replay' ? RATE : all.length));
        expect({ where, steps: new Set(repeated.map(stepOf)).size <= 1, times: Math.max(0, ...[...published.values(), ...entries.values()]) <= 2 }).toEqual({ where, steps: true, times: true });
      }
    }
  });
});
