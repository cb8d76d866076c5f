/**
 * Review h140: `krt dlq inspect` (human output) on a DLQ with nothing unhandled prints its
 * summary on ONE line with literal `\x0a`s:
 *   orders.confirmed.dlq (consumer ...), unhandled records as read (id = partition:offset):
 *     (none)\x0a\x0aorders.confirmed.dlq (consumer billing-order-confirmed): 0 unhandled records
 * The commonest answer an on-call engineer gets (the DLQ is empty) reads as garbage, and
 * `| grep 'unhandled records'` no longer finds the count on its own line.
 *
 * Code at fault: src/cli/dlq-command.ts inspectDlq writes `'  (none)\n' + '\n' + summary` in one
 * io.stdout call; humanIo (src/cli/human-io.ts) escapes every new line inside a chunk.
 * Class: the same as h139's batch of record lines (several lines in one humanIo write).
 * Fixed: the lines are written with writeLines, each escaped alone.
 */
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { humanIo } from '../../src/cli/human-io';
import * as session from '../../src/dlq/session';
import { inspectDlq } from '../../src/cli/dlq-command';
import path from 'node:path';

it('krt dlq inspect of an empty DLQ prints "(none)" and the count on lines of their own', async () => {
  const root = path.resolve(__dirname, '..', '..');
  const { model } = await compileFiles(discoverTopologyFiles(root), root);
  const consumer = model!.topologies.flatMap((t) => t.consumers).find((c) => c.name === 'billing-order-confirmed')!;
  jest.spyOn(session.DlqSession, 'open').mockImplementation(async () => ({ close: async () => {}, expired: [] }) as unknown as session.DlqSession);
  let out = '';
  const io = humanIo({ stdout: (t: string) => { out += t; }, stderr: () => {}, env: {} } as never);
  await inspectDlq(io, {} as never, consumer, { json: false });
  expect(out).not.toContain('\\x0a');
  expect(out.split('\n')).toContain('  (none)');
  expect(out.split('\n').some((l) => /^orders\.confirmed\.dlq \(consumer billing-order-confirmed\): 0 unhandled records$/.test(l))).toBe(true);
});
