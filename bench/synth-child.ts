/**
 * One synth measurement in a process of its own, so peak memory is the run's alone.
 * Prints {"ms":..., "maxRssMb":..., "files":...}.
 *
 * - `krt N`: one topology of N consumers given as a value, through the pipeline `krt synth`
 *   runs (spec -> model -> every emitter, each file written as it is produced).
 * - `floor N`: the same spec parsed, and the same Terraform resources serialized as plain
 *   JSON and written, the least any generator must do.
 *
 * The real `krt` command line is measured as a process of its own (bench/synth.ts, runKrt).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileTopologies } from '../src/compile';
import { favourSmallHeap } from '../src/cli/small-heap';
import { emitProjectFiles, emitTopology } from '../src/emitters';
import { aclRules } from '../src/model/acls';
import { MODEL_SNAPSHOT_FILE, modelSnapshotFile } from '../src/writer/model-snapshot';
import { OutputFolder } from '../src/writer/write-generated';

function spec(consumers: number) {
  return {
    name: 'bench',
    owner: { team: 'bench', onCall: '#bench' },
    runbookBaseUrl: 'https://runbooks.example.com/kafka',
    consumers: Array.from({ length: consumers }, (_, i) => ({
      name: `consumer-${i}`,
      topic: { name: `topic-${i}`, partitions: 12 },
      principal: `User:service-${i % 50}`,
      ladder: ['10s', '1m', '10m', '1h'],
      criticality: (['money', 'standard', 'analytics'] as const)[i % 3],
    })),
  };
}

function printResult(ms: number, files: number): void {
  const usage = process.resourceUsage();
  // CPU time beside wall time: on a shared machine the wall time includes waiting for a core.
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  process.stdout.write(JSON.stringify({ ms, cpuMs, maxRssMb: usage.maxRSS / 1024, files }));
}

function inMemory(mode: string, n: number): void {
  const out = mkdtempSync(path.join(os.tmpdir(), 'krt-bench-synth-'));
  const started = process.hrtime.bigint();
  const result = compileTopologies([{ file: 'topologies/bench.ts', exported: spec(n) }]);
  if (!result.model) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  let files = 0;
  if (mode === 'krt') {
    const folder = new OutputFolder(out, 'write');
    const paths: string[] = [];
    for (const files of [...result.model.topologies.map((t) => emitTopology(t)), emitProjectFiles(result.model)]) {
      for (const file of files) {
        folder.put(file);
        paths.push(file.path);
      }
    }
    folder.put(modelSnapshotFile(result.model));
    folder.finish([...paths.sort(), MODEL_SNAPSHOT_FILE]);
    files = paths.length;
  } else {
    const topology = result.model.topologies[0]!;
    const topics = topology.consumers.flatMap((c) => [...c.tiers, c.dlq, c.dlqAudit]).map((t) => ({ name: t.name, partitions: t.partitions, config: t.config }));
    mkdirSync(path.join(out, 'terraform'), { recursive: true });
    writeFileSync(path.join(out, 'terraform', 'resources.json'), JSON.stringify({ topics, acls: aclRules(topology) }, null, 2));
    files = 1;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  rmSync(out, { recursive: true, force: true });
  printResult(ms, files);
}

const [mode, ...rest] = process.argv.slice(2);
// As the `krt` command does for a synth (src/cli/main.ts); the floor runs with node's defaults.
if (mode !== 'floor') favourSmallHeap();
inMemory(mode!, Number(rest[0]));
