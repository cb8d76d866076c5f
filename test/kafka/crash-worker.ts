/**
 * A worker for the crash test: consumes with the real runtime and appends the id of
 * every record its handler completes to a file. It is killed with SIGKILL at random.
 * Failures are fixed by id: 1 in 100 is permanent (DLQ), 5 in 100 fail once (a tier).
 */
import { appendFileSync } from 'node:fs';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { clientNamed } from './clients';

/** How long the handler works on a record. */
export const RECORD_MS = 90;
/** Main partitions the worker runs side by side (the runtime's default). */
export const WORKER_PARTITIONS_AT_ONCE = 6;

export function failureOf(id: number): 'permanent' | 'transient' | 'none' {
  const bucket = (id * 7919) % 100;
  if (bucket === 0) return 'permanent';
  if (bucket <= 5) return 'transient';
  return 'none';
}

/**
 * With CRASH_DIAG set (a file), one JSON line per runtime event and per record done, with
 * its pid, partition and offset: which records ran twice, and after which kill, rebalance
 * or stale tier copy. A record done twice at two main offsets was written twice.
 */
function diagnosticLog(file: string | undefined): (type: string, record?: ConsumedRecord) => void {
  if (!file) return () => {};
  const started = Date.now();
  return (type, record) =>
    appendFileSync(
      file,
      `${JSON.stringify({ t: Date.now(), sinceStartMs: Date.now() - started, pid: process.pid, type, ...(record ? { id: record.message.value?.toString(), topic: record.topic, partition: record.partition, offset: record.message.offset } : {}) })}\n`,
    );
}

async function main(): Promise<void> {
  const descriptor = JSON.parse(process.env.CRASH_DESCRIPTOR!) as ConsumerDescriptor;
  const output = process.env.CRASH_OUTPUT!;
  // A short session, so the group notices a killed member within seconds.
  const client = clientNamed(process.env.CRASH_CLIENT!);
  const log = diagnosticLog(process.env.CRASH_DIAG);
  const consumer = createRetryingConsumer(descriptor, {
    kafka: client.port(process.env.CRASH_USER!, { sessionTimeout: 6_000, heartbeatInterval: 500, rebalanceTimeout: 10_000 }),
    onEvent: (event) => log(event.type, 'record' in event ? event.record : undefined),
    handler: async (record) => {
      const id = Number(record.message.value!.toString());
      const failure = failureOf(id);
      if (failure === 'permanent') throw new SyntaxError(`record ${id} is unreadable`);
      if (failure === 'transient' && record.topic === descriptor.mainTopic) throw Object.assign(new Error('downstream 503'), { name: 'HTTPError', status: 503 });
      // The work a real handler does. Partitions run six at a time, so a record takes six
      // times the 15 ms of one-at-a-time days: the run still outlasts the test's 20 kills.
      await new Promise((resolve) => setTimeout(resolve, RECORD_MS));
      appendFileSync(output, `${id}\n`);
      log('done', record);
    },
  });
  await consumer.start();
  process.stdout.write('started\n');
}

if (process.env.CRASH_DESCRIPTOR) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
