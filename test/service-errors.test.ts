/**
 * The errors a service meets from krt are KrtErrors it can catch by class: those of the
 * generated router package (a consumer it lacks, a decoder package that cannot be loaded or
 * lacks its export; they were bare Errors, review of #24) and those of the runtime, whose root
 * the runtime package exports, with the NestJS module's wiring error from /nestjs.
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
  it('a consumer name the router package lacks is a KrtError with one sentence naming the ones it has', () => {
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

  it('the runtime package exports the root of its errors, and its NestJS entry the wiring error its module throws', () => {
    expect(exportsOf('src/runtime/index.ts')).toEqual(expect.arrayContaining(['KrtError', 'ClientCannotCarryError']));
    expect(exportsOf('src/nestjs/index.ts')).toEqual(expect.arrayContaining(['ConsumerWiringError']));
  });
});
