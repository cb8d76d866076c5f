/**
 * A port that writes down what the runtime asks of its consumers and what they answer: every
 * record delivered and how its handler ended, every seek, pause and resume, every commit (with
 * its metadata) and its outcome, every read of the group's commits, every rebalance. A broker
 * test that loses a record prints it, so a failure seen once says where the record went.
 */
import type { ConsumerPort, KafkaPort, RunOptions } from '../../src/runtime/port';

const short = (topic: string) => topic.replace(/^.*\.(main|retry\.[^.]+|dlq)$/, '$1');
const meta = (m: string | null | undefined) => (m === undefined || m === null ? '' : ` "${m.replace(/[^\x20-\x7e]/g, '?').slice(0, 160)}"`);

/** `port`, with each consumer's doings appended to `trace` as `ms what`. */
export function tracedPort(port: KafkaPort, trace: string[], t0 = Date.now()): KafkaPort {
  const at = (what: string) => trace.push(`${Date.now() - t0} ${what}`);
  const outcome = <T>(what: string, work: Promise<T>, said: (value: T) => string = () => ''): Promise<T> =>
    work.then(
      (value) => (at(`${what} ok${said(value)}`), value),
      (error: unknown) => {
        at(`${what} FAILED ${String(error).slice(0, 100)}`);
        throw error;
      },
    );
  return {
    producer: () => port.producer(),
    consumer(groupId, options) {
      const c: ConsumerPort = port.consumer(groupId, options);
      const traced: ConsumerPort = {
        ...c,
        connect: () => c.connect(),
        disconnect: () => c.disconnect(),
        subscribe: (s) => c.subscribe(s),
        run: (run: RunOptions) =>
          c.run(
            'eachMessage' in run
              ? {
                  ...run,
                  eachMessage: (p) => {
                    const label = `${short(p.topic)}-${p.partition}@${p.message.offset} ${p.message.key?.toString() ?? ''}:${p.message.value?.toString() ?? ''}`;
                    at(`deliver ${label}`);
                    return outcome(`handled ${label}`, run.eachMessage(p));
                  },
                }
              : run,
          ),
        pause: (t) => (at(`pause ${t.map((x) => `${short(x.topic)}-${x.partitions.join(',')}`).join(' ')}`), c.pause(t)),
        resume: (t) => (at(`resume ${t.map((x) => `${short(x.topic)}-${x.partitions.join(',')}`).join(' ')}`), c.resume(t)),
        seek: (s) => (at(`seek ${short(s.topic)}-${s.partition} to ${s.offset}`), c.seek(s)),
        commitOffsets: (o) => {
          const what = `commit ${o.map((x) => `${short(x.topic)}-${x.partition}@${x.offset}${meta(x.metadata)}`).join(' ')}`;
          at(what);
          return outcome(what.slice(0, 60), c.commitOffsets(o));
        },
        committed: (topic, partitions) =>
          outcome(`read ${short(topic)}-${partitions.join(',')}`, c.committed(topic, partitions), (r) => ` ${r.map((x) => `${x.partition}@${x.offset}${meta(x.metadata)}`).join(' ')}`),
        onRebalance: (listener) => c.onRebalance(() => (at('rebalance'), listener())),
      };
      return traced;
    },
  };
}
