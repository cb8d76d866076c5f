import type { Command } from 'commander';
import type { CliIo } from '../io';

/** What a command needs to register itself: where it writes, and how it reports its exit code. */
export interface CommandContext {
  readonly io: CliIo;
  readonly exit: (code: number) => void;
}

/**
 * One `krt` command: its name, flags and help, with the work required only when it runs
 * (the DLQ tools load kafkajs, the simulator a YAML parser, the monitor prom-client; a
 * one-topology synth would pay a quarter of its time for all of them).
 */
export type CommandRegistration = (program: Command, context: CommandContext) => void;

export const FILES_HELP = 'topology files (default: every topologies/*.ts)';
