import fc from 'fast-check';
import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * Whatever happens to the replay group's commits and to the DLQ topic between the krt dlq
 * commands (retention, Kafka expiring the group's offsets, an admin deleting one partition's,
 * the topic deleted and created again, a partition added), a record is never replayed twice,
 * and every record still in the log that nobody replayed or discarded is listed.
 */
type Step =
  | { readonly kind: 'append'; readonly partition: number; readonly count: number }
  | { readonly kind: 'replay' | 'discard'; readonly pick: number }
  | { readonly kind: 'expire'; readonly partition: number; readonly share: number }
  | { readonly kind: 'delete partition offsets'; readonly partition: number }
  | { readonly kind: 'delete group offsets' }
  | { readonly kind: 'recreate topic' }
  | { readonly kind: 'add partition' };

const PARTITIONS = 3;

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), partition: fc.nat(PARTITIONS), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constantFrom('replay' as const, 'discard' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('expire' as const), partition: fc.nat(PARTITIONS), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('delete partition offsets' as const), partition: fc.nat(PARTITIONS) }),
  fc.constant({ kind: 'delete group offsets' as const }),
  fc.constant({ kind: 'recreate topic' as const }),
  fc.constant({ kind: 'add partition' as const }),
);

const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();

function world() {
  const consumer: ConsumerModel = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const dlq = { ...consumer.dlq, partitions: PARTITIONS };
  const model = { ...consumer, dlq };
  const double = new DlqKafkaDouble();
  for (const topic of [model.mainTopic, ...model.tiers, model.dlq, model.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  return { consumer: model, double };
}

async function withSession<T>(double: DlqKafkaDouble, consumer: ConsumerModel, act: (session: DlqSession) => Promise<T>): Promise<T> {
  const session = await DlqSession.open(double.kafka(), consumer);
  try {
    return await act(session);
  } finally {
    await session.close();
  }
}

/** The records in the DLQ now, by value (each value is written once, ever). */
const inLog = (double: DlqKafkaDouble, consumer: ConsumerModel) => double.messages(consumer.dlq.name).map((m) => m.value!.toString());

/** Every value published anywhere the replay route may send a record. */
const published = (double: DlqKafkaDouble, consumer: ConsumerModel) => [consumer.mainTopic, ...consumer.tiers].flatMap((t) => double.messages(t.name).map((m) => m.value!.toString()));

describe('the DLQ tools over any sequence of replays, discards, retention, deleted offsets and a DLQ topic made again', () => {
  it('never replays a record twice and never hides a record nobody replayed or discarded', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const { consumer, double } = world();
        let partitions = PARTITIONS;
        let written = 0;
        const handled = new Set<string>();
        for (const s of steps) {
          switch (s.kind) {
            case 'append':
              for (let i = 0; i < s.count; i++) {
                const value = `record-${written++}`;
                double.append(consumer.dlq.name, s.partition % partitions, {
                  key: value,
                  value,
                  headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(written), [HEADERS.errorClass]: 'DownstreamTimeout' },
                });
              }
              break;
            case 'replay':
            case 'discard': {
              const done = await withSession(double, consumer, async (session) => {
                // A subset of what is listed, chosen by the bits of `pick`.
                const chosen = session.records.filter((_, i) => ((s.pick >> i % 30) & 1) === 1);
                const result =
                  s.kind === 'replay'
                    ? await replayRecords(double.kafka(), session, chosen, { route: replayRoute(consumer), rate: 1000, by: 'tester', clock })
                    : await discardRecords(double.kafka(), session, chosen, { reason: 'superseded', by: 'tester' });
                return result.handled.map((r) => r.value!.toString());
              });
              for (const v of done) handled.add(v);
              break;
            }
            case 'expire': {
              const partition = s.partition % partitions;
              const offsets = double.messages(consumer.dlq.name).filter((m) => m.partition === partition).map((m) => m.offset);
              if (offsets.length > 0) double.deleteBelow(consumer.dlq.name, partition, offsets[Math.floor(s.share * offsets.length)] ?? offsets[offsets.length - 1]! + 1n);
              break;
            }
            case 'delete partition offsets':
              double.commits.get(consumer.groups.replay)?.delete(`${consumer.dlq.name}:${s.partition % partitions}`);
              break;
            case 'delete group offsets':
              double.commits.delete(consumer.groups.replay);
              break;
            case 'recreate topic':
              double.recreateTopic(consumer.dlq.name, partitions);
              break;
            case 'add partition':
              partitions = double.addPartition(consumer.dlq.name) + 1;
              break;
          }
          const values = published(double, consumer);
          expect(values.filter((v, i) => values.indexOf(v) !== i)).toEqual([]);
          const listed = await withSession(double, consumer, async (session) => session.records.map((r) => r.value!.toString()));
          expect(listed.sort()).toEqual(inLog(double, consumer).filter((v) => !handled.has(v)).sort());
        }
      }),
      {
        numRuns: 500,
        // Sequences a random search reaches rarely: a replay passing a gap retention left, then the topic made again.
        examples: [
          [[
            { kind: 'append', partition: 0, count: 3 },
            { kind: 'expire', partition: 0, share: 0.5 },
            { kind: 'replay', pick: 2 ** 30 - 1 },
            { kind: 'recreate topic' },
            { kind: 'append', partition: 0, count: 3 },
          ]],
          [[
            { kind: 'append', partition: 1, count: 2 },
            { kind: 'discard', pick: 1 },
            { kind: 'delete partition offsets', partition: 1 },
            { kind: 'add partition' },
            { kind: 'append', partition: 3, count: 1 },
            { kind: 'replay', pick: 2 ** 30 - 1 },
            { kind: 'delete group offsets' },
            { kind: 'replay', pick: 2 ** 30 - 1 },
          ]],
        ],
      },
    );
  }, 240_000);
});
