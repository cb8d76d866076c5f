/**
 * Review of #24: "no `throw new Error(` reaches a user from src/". test/errors.test.ts walks the
 * syntax of src/ and skips strings of generated code, so the errors src/emitters/router/index.ts
 * writes into every router package (lines 103, 105 and 134: a consumer the package lacks, a
 * decoder package that cannot be loaded or lacks its export) reach services as bare Errors.
 * And a service cannot tell krt's errors apart at all: the runtime package exports neither
 * the root, KrtError, nor (from /nestjs) the ConsumerWiringError its module throws.
 */
import path from 'node:path';
import ts from 'typescript';
import { KrtError } from '../src/runtime/krt-error';
import { REPO_ROOT } from './helpers/project';

/** The names an entry point of the runtime package exports, as the compiler sees them. */
function exportsOf(entry: string): string[] {
  const file = path.join(REPO_ROOT, entry);
  const config = ts.getParsedCommandLineOfConfigFile(path.join(REPO_ROOT, 'packages', 'runtime', 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const program = ts.createProgram([file], config.options);
  const checker = program.getTypeChecker();
  return checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!).map((s) => s.name);
}

describe('errors a service meets from krt', () => {
  // Fails today: the generated package's descriptorOf throws `new Error('unknown consumer …')`.
  it.failing('a consumer name the router package lacks is a KrtError with one sentence naming the ones it has', () => {
    const router = require(path.join(REPO_ROOT, 'generated', 'router', 'analytics', 'index.js')) as { createRetryingConsumer(name: string, options: object): unknown };
    let thrown: unknown;
    try {
      router.createRetryingConsumer('analytics-order', {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KrtError);
    expect((thrown as Error).message).toBe('unknown consumer analytics-order; this package has analytics-orders');
  });

  // Fails today: src/runtime/index.ts exports ClientCannotCarryError and DeserializationError
  // but not KrtError; src/nestjs/index.ts does not export ConsumerWiringError.
  it.failing('the runtime package exports the root of its errors, and its NestJS entry the wiring error its module throws', () => {
    expect(exportsOf('src/runtime/index.ts')).toEqual(expect.arrayContaining(['KrtError', 'ClientCannotCarryError']));
    expect(exportsOf('src/nestjs/index.ts')).toEqual(expect.arrayContaining(['ConsumerWiringError']));
  });
});
