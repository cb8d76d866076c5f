import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { HEADERS } from '../src/naming/headers';
import type { BenchClientName } from './clients';
import { freshTopics, produce } from './kafka';

export interface MemoryRow {
  readonly client: BenchClientName;
  readonly waiting: number;
  readonly rssMb: number;
}

/** RSS of a fresh retry consumer process with `waiting` records in its tier. */
async function sample(client: BenchClientName, waiting: number, round: number): Promise<number> {
  const d = await freshTopics(`memory-${client}-${waiting}-${round}`, [3600], 6);
  const dueAt = String(Date.now() + 3_600_000);
  await produce(d.tiers[0]!.topic, waiting, () => ({ [HEADERS.dueAt]: dueAt }));
  const out = execFileSync(process.execPath, ['--expose-gc', path.join(__dirname, '..', 'node_modules', 'jiti', 'lib', 'jiti-cli.mjs'), path.join(__dirname, 'memory-child.ts')], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_DESCRIPTOR: JSON.stringify(d), BENCH_PARTITIONS: '6', BENCH_CLIENT: client },
  });
  return JSON.parse(out).rssMb;
}

/** RSS of a retry consumer with these many records waiting: the median of alternating rounds (one sample is noise here). */
export async function benchMemory(client: BenchClientName, sizes: readonly number[] = [1_000, 100_000], rounds = 3): Promise<MemoryRow[]> {
  const samples = new Map<number, number[]>(sizes.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) {
    for (const waiting of sizes) samples.get(waiting)!.push(await sample(client, waiting, round));
  }
  return sizes.map((waiting) => {
    const sorted = [...samples.get(waiting)!].sort((a, b) => a - b);
    return { client, waiting, rssMb: sorted[Math.floor(sorted.length / 2)]! };
  });
}
