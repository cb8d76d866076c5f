import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface SynthRow {
  readonly consumers: number;
  readonly krtMs: number;
  readonly floorMs: number;
  readonly krtRssMb: number;
  readonly floorRssMb: number;
  readonly files: number;
}

const JITI = path.join(__dirname, '..', 'node_modules', '.bin', 'jiti');

function once(mode: 'krt' | 'floor', consumers: number): { ms: number; maxRssMb: number; files: number } {
  return JSON.parse(execFileSync(JITI, [path.join(__dirname, 'synth-child.ts'), mode, String(consumers)], { encoding: 'utf8' }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** krt and the floor alternate, three rounds each size; medians. */
export function benchSynth(sizes: readonly number[] = [10, 100, 1000], rounds = 3): SynthRow[] {
  return sizes.map((consumers) => {
    const krt: ReturnType<typeof once>[] = [];
    const floor: ReturnType<typeof once>[] = [];
    for (let r = 0; r < rounds; r++) {
      krt.push(once('krt', consumers));
      floor.push(once('floor', consumers));
    }
    return {
      consumers,
      krtMs: median(krt.map((x) => x.ms)),
      floorMs: median(floor.map((x) => x.ms)),
      krtRssMb: median(krt.map((x) => x.maxRssMb)),
      floorRssMb: median(floor.map((x) => x.maxRssMb)),
      files: krt[0]!.files,
    };
  });
}
