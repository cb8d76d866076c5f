import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './helpers/project';

/**
 * Review h142 (450127b): main() ends every command's process LINGER_MS (2 s) after the
 * command's promise resolves, with process.exit. On Linux a write to a pipe is not
 * synchronous in Node: libuv writes what fits in the pipe (64 KiB) and queues the rest in
 * process.stdout's buffer. A reader slower than 2 s (`krt ... | (sleep 15; wc -c)`; the test sleeps 15 s since jiti start-up varies, a pager, a
 * CI log shipper under load) gets the first 64 KiB and the rest is dropped, with exit code 0.
 *
 * Seen: `krt simulate big.yml | (sleep 15; wc -c)` prints 65536 of 545161 bytes at 450127b;
 * 545161 with 450127b^'s process-main.ts. The same holds for `krt dlq inspect --json`, whose
 * closing write (unhandled, expired, groups) follows the last drain: a slow reader gets JSON
 * cut off at 64 KiB, exit 0.
 *
 * Fixed (outputWritten in process-main.ts): the linger timer starts only once stdout and stderr have flushed what was written, as
 * `Promise.all([process.stdout, process.stderr].map((s) => new Promise((r) => s.write('', () => r(undefined)))))
 * .then(() => setTimeout(() => process.exit(code), LINGER_MS).unref())` (a write callback
 * runs once every earlier write reached the kernel, or failed: EPIPE when the reader left).
 */
describe('the krt process (review h142)', () => {
  it('does not cut off a large stdout when the pipe reader is slower than the 2 s linger', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'krt-h142-'));
    const records = Array.from({ length: 1500 }, (_, i) => `  - key: order-${i}\n    event: created\n    fails: { times: always, error: { name: HTTPError, status: 503, message: payment-svc 503 } }`);
    const scenario = path.join(dir, 'big.yml');
    writeFileSync(scenario, ['name: big', 'consumer:', '  topic: { name: orders, partitions: 1 }', '  ladder: [5s, 1m]', '  ordering: unordered', 'records:', ...records, ''].join('\n'));
    const script = path.join(dir, 'run.ts');
    writeFileSync(script, `require(${JSON.stringify(path.join(REPO_ROOT, 'src', 'cli', 'process-main.ts'))}).main(process.argv.slice(2));\n`);
    const jiti = path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti');
    // Once to learn the full size (a fast reader), once behind a reader that starts after 15 s.
    const fast = spawnSync('bash', ['-c', `"${jiti}" "${script}" simulate "${scenario}" | wc -c`], { encoding: 'utf8', timeout: 60_000 });
    const slow = spawnSync('bash', ['-o', 'pipefail', '-c', `"${jiti}" "${script}" simulate "${scenario}" | (sleep 15; wc -c)`], { encoding: 'utf8', timeout: 60_000 });
    const full = Number(fast.stdout.trim());
    expect(full).toBeGreaterThan(200_000);
    expect({ bytes: Number(slow.stdout.trim()), status: slow.status }).toEqual({ bytes: full, status: 0 });
  }, 120_000);
});
