import { CommanderError } from 'commander';
import { KrtError } from '../runtime/krt-error';
import { visibleText } from '../util/visible-text';
import { EXIT } from './io';
import type { CliIo } from './io';

/**
 * The exit code after a command threw, having said why on stderr. Every error a user can
 * cause is a KrtError, which knows its exit code and its sentence; kafkajs's errors (a broker
 * unreachable, a principal refused) are explained; anything else is a crash and is rethrown.
 */
export function exitAfter(error: unknown, io: CliIo, command: string | undefined): number {
  if (error instanceof CommanderError) {
    const quiet = ['commander.helpDisplayed', 'commander.version'];
    return quiet.includes(error.code) ? EXIT.ok : EXIT.usage;
  }
  const env = io.env ?? process.env;
  if (error instanceof KrtError) {
    // Messages can quote a record's bytes (a DLQ's original topic): escaped like all output of records.
    io.stderr(`krt: ${visibleText(error.describe({ command, env }), { keepLines: true })}\n`);
    return EXIT[error.exit];
  }
  if (isKafkaError(error)) {
    // Required only here: the DLQ's connection module loads kafkajs.
    const { explainKafkaError, principalOfCommand } = require('../connection/kafka-connection') as typeof import('../connection/kafka-connection');
    io.stderr(`krt: ${explainKafkaError(error, env, principalOfCommand(command))}\n`);
    return EXIT.problems;
  }
  throw error;
}

/** kafkajs errors (broker unreachable, not authorized) are the user's to fix, not a crash. */
function isKafkaError(error: unknown): error is Error {
  return error instanceof Error && error.name.startsWith('KafkaJS');
}

