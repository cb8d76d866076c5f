/**
 * How a command that met the error ends: `usage` (exit 2) for a mistake on the command line
 * or in the settings, `problems` (exit 1) for something found in the input or on the broker.
 */
export type ExitKind = 'usage' | 'problems';

/** What a message may depend on: the command that met it and the environment it ran in. */
export interface ErrorContext {
  readonly command?: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The root of every error a user can cause: a bad flag, a spec, settings, a scenario, an
 * output folder, a client that cannot do what was asked. It carries what the CLI needs to
 * end well, as kafkajs's errors carry `retriable`: how to exit, and the sentence to print.
 * Lives in the runtime because services meet some of them too and the runtime imports
 * nothing from the generator.
 */
export class KrtError extends Error {
  readonly exit: ExitKind;

  constructor(message: string, options: { exit?: ExitKind; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exit = options.exit ?? 'problems';
  }

  /** The sentence the CLI prints after `krt: `; a subclass says more when the command matters. */
  describe(_context: ErrorContext): string {
    return this.message;
  }
}

/**
 * A broken promise inside krt itself, not the user's doing (two emitters wrote one file, a
 * simulation that never settles). Still one root, so nothing reaches a user as a bare Error,
 * and the CLI prints the stack with it so the report can be acted on.
 */
export class DefectError extends KrtError {
  override describe(): string {
    return `${this.message} (a defect of kafka-retry-topology: please report it with the command you ran)\n${this.stack ?? ''}`;
  }
}
