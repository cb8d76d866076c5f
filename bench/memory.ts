import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { HEADERS } from '../src/naming/headers';
import { freshTopics, produce } from './kafka';

export interface MemoryRow {
  readonly waiting: number;
  readonly rssMb: number;
}

/** RSS of a retry consumer process with these many records waiting in its tier. */
export async function benchMemory(sizes: readonly number[] = [1_000, 100_000]): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  for (const waiting of sizes) {
    const d = await freshTopics(`memory-${waiting}`, [3600], 6);
    const dueAt = String(Date.now() + 3_600_000);
    await produce(d.tiers[0]!.topic, waiting, () => ({ [HEADERS.dueAt]: dueAt }));
    const out = execFileSync(process.execPath, ['--expose-gc', path.join(__dirname, '..', 'node_modules', 'jiti', 'lib', 'jiti-cli.mjs'), path.join(__dirname, 'memory-child.ts')], {
      encoding: 'utf8',
      env: { ...process.env, BENCH_DESCRIPTOR: JSON.stringify(d), BENCH_PARTITIONS: '6' },
    });
    rows.push({ waiting, rssMb: JSON.parse(out).rssMb });
  }
  return rows;
}
