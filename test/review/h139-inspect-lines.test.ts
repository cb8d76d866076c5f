/**
 * Review h139: `krt dlq inspect` (human output) prints the records of one read batch on ONE
 * line, joined by a literal `\x0a`.
 *
 * Seen on the test broker (3 records in partition 2 of orders.confirmed.dlq):
 *   orders.confirmed.dlq (consumer billing-order-confirmed), unhandled records as read (id = partition:offset):\x0a  5:0 ...
 *   2:0 ... from orders.confirmed[2]@1000\x0a  2:1 ... \x0a  2:2 ...
 * An on-call engineer with a hundred dead letters in a partition gets one unreadable line;
 * `| grep`, `| wc -l` and `| head` no longer see a record per line.
 *
 * Code at fault: src/cli/dlq-command.ts inspectDlq batches several lines into `pending` and
 * writes them with one io.stdout call; humanIo (src/cli/human-io.ts) runs visibleLine over the
 * chunk, which escapes every newline that is not at the chunk's start or end.
 * Fixed: humanIo escapes the lines a command writes together each alone (CliIo.stdoutLines, writeLines), and inspect hands its batch over as lines; was: escape each record's fields (or each line) before joining, or make humanIo split the
 * chunk on '\n' and escape line by line.
 */
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { humanIo } from '../../src/cli/human-io';
import { HEADERS } from '../../src/naming/headers';
import { dlqRecord } from '../console/fake-dlq';
import * as session from '../../src/dlq/session';
import { inspectDlq } from '../../src/cli/dlq-command';
import path from 'node:path';

/** What `krt dlq inspect` prints (human output) of DLQ partition 2 holding one record per error message, read as one batch. */
async function inspected(messages: readonly string[]): Promise<string> {
  const root = path.resolve(__dirname, '..', '..');
  const { model } = await compileFiles(discoverTopologyFiles(root), root);
  const consumer = model!.topologies.flatMap((t) => t.consumers).find((c) => c.name === 'billing-order-confirmed')!;
  const records = messages.map((message, o) => dlqRecord(2, o, { key: `k${o}`, value: 'v', headers: { [HEADERS.errorClass]: 'ShortError', [HEADERS.errorMessage]: message, [HEADERS.attempt]: '4' } }));
  // A session that reads one batch of the records, then flushes it, as DlqSession does per fetch.
  jest.spyOn(session.DlqSession, 'open').mockImplementation(async (_kafka, _consumer, _timeout, keep, scope) => {
    for (const r of records) keep!(r);
    await (scope as { drain?: () => Promise<void> }).drain?.();
    return { close: async () => {}, expired: [] } as unknown as session.DlqSession;
  });
  let out = '';
  const io = humanIo({ stdout: (t: string) => { out += t; }, stderr: () => {}, env: {} } as never);
  await inspectDlq(io, {} as never, consumer, { json: false });
  return out;
}

it('krt dlq inspect prints one line per record, however the reads are batched', async () => {
  const out = await inspected(['boom 0', 'boom 1', 'boom 2']);
  expect(out).not.toContain('\\x0a');
  expect(out.split('\n').filter((l) => /^ {2}2:\d /.test(l))).toHaveLength(3);
});

it('krt dlq inspect still escapes a new line or escape sequence a producer put in a record, line by line', async () => {
  const out = await inspected(['boom\n  2:9 fake line\u001b[31m', 'boom\n  2:9 fake line\u001b[31m']);
  expect(out).not.toContain('\u001b');
  expect(out.split('\n').filter((l) => /^ {2}2:\d /.test(l)).map((l) => l.slice(0, 5))).toEqual(['  2:0', '  2:1']);
});
