import { z } from 'zod';
import { formatDuration, parseDuration } from '../duration';
import { ALERT_KEYS } from '../alerts';
import {
  ALERT_LABELS,
  PROMETHEUS_LABEL_PATTERN,
  HEADER_STYLES,
  IDENTIFIER_HINT,
  IDENTIFIER_PATTERN,
  MAX_IDENTIFIER_LENGTH,
  NAMING_STYLES,
  PRINCIPAL_PATTERN,
  topicNameProblem,
} from '../naming';
import { describeValue } from '../validate/zod-issues';
import { CRITICALITIES, ORDERING_STRATEGIES, SEVERITIES } from './types';
import type { TopologySpec } from './types';
import { valueCodecSchema } from './value-codec';

/**
 * The zod schema of a topology spec. It checks each field on its own; rules that relate
 * fields or consumers (ladder order, partitions, name collisions) run on the model.
 */

const duration = z.string().superRefine((text, ctx) => {
  const parsed = parseDuration(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.reason });
});

const identifier = (what: string) =>
  z
    .string()
    .max(MAX_IDENTIFIER_LENGTH, { error: `a ${what} name has at most ${MAX_IDENTIFIER_LENGTH} characters; shorten it` })
    .regex(IDENTIFIER_PATTERN, { error: (issue) => `'${String(issue.input)}' is not a valid ${what} name: ${IDENTIFIER_HINT}` });

const topicName = z.string().superRefine((name, ctx) => {
  const problem = topicNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const principal = z.string().regex(PRINCIPAL_PATTERN, {
  error: (issue) => `'${String(issue.input)}' is not a principal: write it as 'User:name', e.g. 'User:billing'`,
});

const partitions = z
  .number()
  .int({ error: 'partitions must be a whole number' })
  .min(1, { error: 'partitions must be at least 1' })
  .max(100_000, { error: 'partitions must be at most 100000' });

/** The path already names the field, so the message says only what to put there. */
const nonEmptyText = (example: string) => z.string().trim().min(1, { error: `cannot be empty; write e.g. ${example}` });

const errorNames = z
  .array(
    z.union([nonEmptyText("'OrderValidationError'"), z.number().int()], {
      error: (issue) => `'${String(issue.input)}' is not an error name or code; write the error's name, e.g. 'OrderValidationError', or its code, e.g. 422`,
    }),
  )
  .readonly();

const oneOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, {
    error: (issue) => `'${String(issue.input)}' is not a known ${what}; use one of ${values.map((v) => `'${v}'`).join(', ')}`,
  });

const environmentLabel = z
  .string()
  .regex(PROMETHEUS_LABEL_PATTERN, { error: (issue) => `'${String(issue.input)}' is not a Prometheus label name: letters, digits and '_', not starting with a digit or '__'` })
  .refine((name) => !(ALERT_LABELS as readonly string[]).includes(name), {
    error: (issue) => `'${String(issue.input)}' is a label the alerts set themselves (${ALERT_LABELS.join(', ')}); name the label that separates environments, e.g. 'cluster'`,
  });


const tier = z.union(
  [duration, z.strictObject({ delay: duration, partitions: partitions.optional(), retention: duration.optional() })],
  {
    error: (issue) =>
      Number.isSafeInteger(issue.input) && (issue.input as number) > 0
        ? `${issue.input} is a number, but a delay is written with its unit; write e.g. '${formatDuration(issue.input as number)}'`
        : `${describeValue(issue.input)} is neither a duration such as '10m' nor an object { delay, partitions?, retention? }`,
  },
);

const alertOverride = z.strictObject({
  threshold: z.number().min(0, { error: 'an alert threshold cannot be negative' }).optional(),
  for: duration.optional(),
  severity: oneOf(SEVERITIES, 'severity').optional(),
});

const alerts = z.strictObject(
  Object.fromEntries(ALERT_KEYS.map((key) => [key, alertOverride.optional()])) as Record<
    (typeof ALERT_KEYS)[number],
    z.ZodOptional<typeof alertOverride>
  >,
);

export const consumerSchema = z.strictObject({
  name: identifier('consumer'),
  topic: z.strictObject({
    name: topicName,
    partitions,
    managed: z.boolean().optional(),
    previouslyManaged: z.boolean().optional(),
    config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  }),
  group: nonEmptyText("'billing-order-confirmed', or leave group out to use the consumer's name").optional(),
  principal,
  ladder: z.array(tier).readonly().optional(),
  retired: z.array(tier).readonly().optional(),
  decommissioned: z.boolean().optional(),
  previousOrdering: oneOf(ORDERING_STRATEGIES, 'ordering strategy').optional(),
  previousTopology: identifier('topology').optional(),
  retryTopicBase: topicName.optional(),
  inPlace: z
    .strictObject({
      attempts: z
        .number()
        .int({ error: 'attempts must be a whole number' })
        .min(1, { error: 'attempts counts the first try, so it is at least 1 (1 turns in-place retry off)' })
        .max(20, { error: 'more than 20 in-place attempts blocks the partition too long; use the ladder instead' })
        .optional(),
      backoff: duration.optional(),
      maxBackoff: duration.optional(),
      jitter: z.number().min(0, { error: 'jitter is a share between 0 and 1' }).max(1, { error: 'jitter is a share between 0 and 1' }).optional(),
    })
    .optional(),
  dlq: z.strictObject({ retention: duration.optional(), partitions: partitions.optional(), auditRetention: duration.optional() }).optional(),
  criticality: oneOf(CRITICALITIES, 'criticality').optional(),
  alerts: alerts.optional(),
  errors: z
    .strictObject({
      permanent: errorNames.optional(),
      ambiguous: errorNames.optional(),
      ambiguousTiers: z.number().int({ error: 'ambiguousTiers must be a whole number' }).min(0, { error: 'ambiguousTiers cannot be negative' }).optional(),
    })
    .optional(),
  ordering: oneOf(ORDERING_STRATEGIES, 'ordering strategy').optional(),
  headers: oneOf(HEADER_STYLES, 'header style').optional(),
  value: valueCodecSchema.optional(),
});

export const topologySchema = z.strictObject({
  name: identifier('topology'),
  owner: z.strictObject({ team: nonEmptyText("the owning team, 'billing'"), onCall: nonEmptyText("where to page, '#billing-oncall'") }),
  runbookBaseUrl: z
    .url({
      protocol: /^https?$/,
      error: (issue) => `'${String(issue.input)}' is not an http(s) URL; give the address where the runbooks are hosted, e.g. 'https://github.com/acme/kafka/blob/main/generated/runbooks'`,
    })
    .superRefine((url, ctx) => {
      // Every runbook link appends `/{consumer}.md#{alert}`: after a query or a fragment
      // that lands in the wrong part of the URL.
      const bare = url.replace(/[?#].*$/, '');
      if (bare !== url) ctx.addIssue({ code: 'custom', message: `'${url}' has a query or fragment, so the runbook links appended to it would break; use '${bare}'` });
    }),
  cluster: z
    .strictObject({
      replicationFactor: z.number().int({ error: 'replicationFactor must be a whole number' }).min(1, { error: 'replicationFactor must be at least 1' }).optional(),
      minInsyncReplicas: z.number().int({ error: 'minInsyncReplicas must be a whole number' }).min(1, { error: 'minInsyncReplicas must be at least 1' }).optional(),
    })
    .optional(),
  naming: oneOf(NAMING_STYLES, 'naming style').optional(),
  principals: z.strictObject({ replay: principal.optional(), monitor: principal.optional(), drift: principal.optional() }).optional(),
  alerts: z.strictObject({ environmentLabels: z.array(environmentLabel).readonly().optional() }).optional(),
  previousName: identifier('topology').optional(),
  consumers: z.array(z.unknown()).min(1, { error: 'a topology needs at least one consumer; add one to consumers' }),
});

export type ParsedTopology = Omit<z.output<typeof topologySchema>, 'consumers'>;
export type ParsedConsumer = z.output<typeof consumerSchema>;

/**
 * Compile-time proof that every spec the documented interfaces allow passes the schema's
 * types (the schema is looser only where it checks at run time, e.g. duration strings).
 */
type Assignable<From, To> = [From] extends [To] ? true : false;
const specMatchesSchema: [
  Assignable<TopologySpec['consumers'][number], z.input<typeof consumerSchema>>,
  Assignable<Omit<TopologySpec, 'consumers'>, Omit<z.input<typeof topologySchema>, 'consumers'>>,
  Assignable<Omit<z.input<typeof topologySchema>, 'consumers' | 'runbookBaseUrl'>, Omit<TopologySpec, 'consumers' | 'runbookBaseUrl'>>,
] = [true, true, true];
void specMatchesSchema;
