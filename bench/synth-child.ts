/**
 * One synth measurement in a process of its own, so peak memory is the run's alone.
 * Prints {"ms":..., "maxRssMb":..., "files":...}. Mode `krt` runs the whole pipeline
 * (spec -> model -> every emitter -> writer); mode `floor` serializes the same Terraform
 * resources as plain JSON and writes them, the least any generator must do.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileTopologies } from '../src/compile';
import { emitAll } from '../src/emitters';
import { aclRules } from '../src/model/acls';
import { writeGenerated } from '../src/writer/write-generated';

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

function main(): void {
  const [mode, n] = [process.argv[2], Number(process.argv[3])];
  const out = mkdtempSync(path.join(os.tmpdir(), 'krt-bench-synth-'));
  const started = process.hrtime.bigint();
  const result = compileTopologies([{ file: 'topologies/bench.ts', exported: spec(n) }]);
  if (!result.model) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  let files: number;
  if (mode === 'krt') {
    const generated = emitAll(result.model);
    writeGenerated(out, generated);
    files = generated.length;
  } else {
    const topology = result.model.topologies[0]!;
    const topics = topology.consumers.flatMap((c) => [...c.tiers, c.dlq, c.dlqAudit]).map((t) => ({ name: t.name, partitions: t.partitions, config: t.config }));
    mkdirSync(path.join(out, 'terraform'), { recursive: true });
    writeFileSync(path.join(out, 'terraform', 'resources.json'), JSON.stringify({ topics, acls: aclRules(topology) }, null, 2));
    files = 1;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  rmSync(out, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, files }));
}

main();
