import { DLQ_FLAGS, DLQ_RECORD_ID_FORMAT, dlqCommand, lagCommandLine, REPLAY_ROUTES } from '../../naming';
import type { ConsumerModel } from '../../model/types';

/** The kcat settings file the runbook asks people to create once (see "Before you start"). */
export const KCAT_CONFIG = 'monitor.kcat.conf';

/** Placeholders a runbook command leaves for the reader, named after what `krt` prints. */
export const PLACEHOLDERS = {
  errorName: '<error-name>',
  partition: '<partition>',
  committed: '<committed>',
} as const;

const KCAT_FORMAT = `'%t %p:%o key=%k at %T\\n  headers: %h\\n  value: %s\\n'`;

/** The exact command lines a runbook prints for one consumer. */
export function runbookCommands(consumer: ConsumerModel) {
  const c = consumer.name;
  const kcat = (topic: string, ...args: string[]) => ['kcat', '-F', KCAT_CONFIG, '-C', '-t', topic, ...args, '-e', '-q', '-f', KCAT_FORMAT].join(' ');
  const firstTier = consumer.tiers[0];
  // Without a tier no route leads back to this consumer alone: the main topic, said out loud.
  const route = firstTier ? [] : [DLQ_FLAGS.to, REPLAY_ROUTES.mainTopic];
  const confirmed = firstTier ? [] : [DLQ_FLAGS.yes];
  return {
    inspect: dlqCommand('inspect', c),
    inspectJson: dlqCommand('inspect', c, DLQ_FLAGS.json),
    replayDryRun: dlqCommand('replay', c, DLQ_FLAGS.errorClass, PLACEHOLDERS.errorName, DLQ_FLAGS.limit, '100', DLQ_FLAGS.rate, '10', ...route, DLQ_FLAGS.dryRun),
    replay: dlqCommand('replay', c, DLQ_FLAGS.errorClass, PLACEHOLDERS.errorName, DLQ_FLAGS.limit, '100', DLQ_FLAGS.rate, '10', ...route, ...confirmed),
    replayByIds: dlqCommand('replay', c, DLQ_FLAGS.ids, `${DLQ_RECORD_ID_FORMAT},...`, DLQ_FLAGS.rate, '10', ...route, ...confirmed),
    discard: dlqCommand('discard', c, DLQ_FLAGS.ids, `${DLQ_RECORD_ID_FORMAT},...`, DLQ_FLAGS.reason, '"<why it cannot be saved>"', DLQ_FLAGS.by, '"<your name>"'),
    kcatDlq: kcat(consumer.dlq.name, '-o', 'beginning'),
    kcatDlqTail: kcat(consumer.dlq.name, '-o', '-5'),
    kcatTierHead: firstTier
      ? kcat(firstTier.name, '-p', PLACEHOLDERS.partition, '-o', PLACEHOLDERS.committed, '-c', '1')
      : kcat(consumer.dlq.name, '-o', '-5'),
    lag: lagCommandLine(c),
  };
}
