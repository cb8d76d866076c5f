import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { ORDERING_STRATEGIES } from '../spec/types';
import { formatPath } from '../validate/zod-issues';
import { KrtError } from '../runtime/krt-error';

const errorSpec = z.strictObject({
  name: z.string().min(1),
  message: z.string(),
  status: z.number().int().optional(),
  code: z.string().optional(),
});

/** A simulation: a consumer spec's retry settings and the records its handler will see. */
export const scenarioSchema = z.strictObject({
  name: z.string().min(1),
  consumer: z.strictObject({
    topic: z.strictObject({ name: z.string().min(1), partitions: z.number().int().min(1) }),
    ladder: z.array(z.string()).optional(),
    ordering: z.enum(ORDERING_STRATEGIES).optional(),
    inPlace: z.record(z.string(), z.unknown()).optional(),
    errors: z.record(z.string(), z.unknown()).optional(),
  }),
  records: z
    .array(
      z.strictObject({
        key: z.string().min(1),
        event: z.string().min(1),
        partition: z.number().int().min(0).optional(),
        /** How the handler fails on this record: the first `times` calls, or always. */
        fails: z.strictObject({ times: z.union([z.number().int().min(1), z.literal('always')]), error: errorSpec }).optional(),
      }),
    )
    .min(1),
}).superRefine((scenario, ctx) => {
  for (const problem of recordPartitionProblems(scenario)) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

export type Scenario = z.infer<typeof scenarioSchema>;

/** Records placed on a partition the scenario's topic does not have: the broker would only say it does not host it. */
export function recordPartitionProblems(scenario: Pick<Scenario, 'consumer' | 'records'>): { path: (string | number)[]; message: string }[] {
  const { name, partitions } = scenario.consumer.topic;
  const has = partitions === 1 ? '1 partition (0)' : `${partitions} partitions (0 to ${partitions - 1})`;
  return scenario.records.flatMap((record, index) => {
    if (record.partition === undefined || record.partition < partitions) return [];
    const message = `record ${record.key}:${record.event} is on partition ${record.partition}, but topic '${name}' has ${has}; use a partition from 0 to ${partitions - 1} or give the topic more partitions`;
    return [{ path: ['records', index, 'partition'], message }];
  });
}

export class ScenarioError extends KrtError {}

export function readScenario(file: string): Scenario {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ScenarioError(`cannot read scenario ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${formatPath(i.path) || '(file)'}: ${i.message}`).join('; ');
    throw new ScenarioError(`scenario ${file} is not valid: ${problems}`);
  }
  return parsed.data;
}
