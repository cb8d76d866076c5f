import { DLQ_FLAGS, DLQ_RECORD_ID_FORMAT, dlqCommand, KAFKA_ENV } from '../../naming';
import type { ConsumerModel } from '../../model/types';

/** Client settings files the runbook asks people to create once (see "Before you start"). */
export const KCAT_CONFIG = 'monitor.kcat.conf';
export const KAFKA_TOOLS_CONFIG = 'monitor.properties';

const KCAT_FORMAT = `'%t %p:%o key=%k at %T\\n  headers: %h\\n  value: %s\\n'`;

/** The exact command lines a runbook prints for one consumer. */
export function runbookCommands(consumer: ConsumerModel) {
  const c = consumer.name;
  const bootstrap = `"$${KAFKA_ENV.bootstrapServers}"`;
  const kcat = (topic: string, ...args: string[]) => ['kcat', '-F', KCAT_CONFIG, '-C', '-t', topic, ...args, '-e', '-q', '-f', KCAT_FORMAT].join(' ');
  const describeGroup = (group: string) =>
    `kafka-consumer-groups.sh --bootstrap-server ${bootstrap} --command-config ${KAFKA_TOOLS_CONFIG} --describe --group ${group}`;
  const firstTier = consumer.tiers[0];
  return {
    inspect: dlqCommand('inspect', c),
    inspectJson: dlqCommand('inspect', c, DLQ_FLAGS.json),
    replayDryRun: dlqCommand('replay', c, DLQ_FLAGS.errorClass, '<class>', DLQ_FLAGS.limit, '100', DLQ_FLAGS.rate, '10', DLQ_FLAGS.dryRun),
    replay: dlqCommand('replay', c, DLQ_FLAGS.errorClass, '<class>', DLQ_FLAGS.limit, '100', DLQ_FLAGS.rate, '10'),
    replayByIds: dlqCommand('replay', c, DLQ_FLAGS.ids, `${DLQ_RECORD_ID_FORMAT},...`, DLQ_FLAGS.rate, '10'),
    discard: dlqCommand('discard', c, DLQ_FLAGS.ids, `${DLQ_RECORD_ID_FORMAT},...`, DLQ_FLAGS.reason, '"<why it cannot be saved>"', DLQ_FLAGS.by, '"<your name>"'),
    kcatDlq: kcat(consumer.dlq.name, '-o', 'beginning'),
    kcatDlqTail: kcat(consumer.dlq.name, '-o', '-5'),
    kcatTierHead: firstTier
      ? kcat(firstTier.name, '-p', '<partition>', '-o', '<CURRENT-OFFSET of that partition in the retry group>', '-c', '1')
      : kcat(consumer.dlq.name, '-o', '-5'),
    consoleConsumerDlq: [
      'kafka-console-consumer.sh', '--bootstrap-server', bootstrap, '--consumer.config', KAFKA_TOOLS_CONFIG,
      '--topic', consumer.dlq.name, '--from-beginning', '--max-messages', '20',
      '--property', 'print.partition=true', '--property', 'print.offset=true', '--property', 'print.key=true', '--property', 'print.headers=true',
    ].join(' '),
    describeRetryGroup: describeGroup(consumer.groups.retry),
    describeReplayGroup: describeGroup(consumer.groups.replay),
    describeMainGroup: describeGroup(consumer.groups.main),
  };
}
