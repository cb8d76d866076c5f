import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { exitAfter } from '../src/cli/exit-after';
import { UsageError } from '../src/cli/topology-files';
import { EXIT } from '../src/cli/io';
import { ConnectionSettingsError, MissingCredentialsError } from '../src/connection/kafka-connection';
import { DlqError } from '../src/dlq/session';
import { DefectError, KrtError } from '../src/runtime/krt-error';
import { ClientCannotCarryError } from '../src/runtime/adapters/platformatic-refusals';
import { ScenarioError } from '../src/simulate/scenario';
import { OutputFolderError } from '../src/writer/write-generated';
import { FilterError } from '../src/console/filter';
import { ConsumerWiringError } from '../src/nestjs/consumer-wiring-error';

const SRC = path.join(__dirname, '..', 'src');

/** `new Error(...)` that may stay: each stands for someone else's error, not one of ours. */
const PLAIN_ERRORS_ALLOWED: Record<string, string> = {
  'simulate/simulate.ts': "a scenario's handler error, named as the scenario says, as a service's own code would throw it",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.split(path.sep).includes('.gen'))
    .map((f) => path.join(dir, f));
}

/** Every `new Error(` in the code (strings of generated code do not count: they are not syntax here). */
function plainErrorsIn(file: string): number[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Error') {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    }
    node.forEachChild(visit);
  };
  visit(source);
  return lines;
}

function run(error: unknown, command?: string): { code: number; stderr: string } {
  let stderr = '';
  const code = exitAfter(error, { cwd: '.', stdout: () => undefined, stderr: (t) => (stderr += t), env: {} }, command);
  return { code, stderr };
}

describe('errors a user can cause', () => {
  it('are never a bare Error anywhere in src/: each is a KrtError that knows its exit code', () => {
    const offenders = sourceFiles(SRC).flatMap((file) => {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      if (PLAIN_ERRORS_ALLOWED[relative]) return [];
      return plainErrorsIn(file).map((line) => `${relative}:${line}`);
    });
    expect(offenders).toEqual([]);
  });

  it.each([
    ['UsageError', new UsageError('no such topology file: x.ts'), EXIT.usage],
    ['FilterError', new FilterError('from must be a time'), EXIT.usage],
    ['ConnectionSettingsError', new ConnectionSettingsError('set KAFKA_BOOTSTRAP_SERVERS'), EXIT.usage],
    ['DlqError', new DlqError('no DLQ for consumer x'), EXIT.problems],
    ['ScenarioError', new ScenarioError('records must be a list'), EXIT.problems],
    ['OutputFolderError', new OutputFolderError('generated/ holds files krt did not write'), EXIT.problems],
    ['ClientCannotCarryError', new ClientCannotCarryError('park-by-key needs commit metadata'), EXIT.problems],
    ['ConsumerWiringError', new ConsumerWiringError('two providers handle consumer x'), EXIT.problems],
  ])('a %s ends the command with its own exit code and one line naming the problem', (name, error, exit) => {
    expect(error).toBeInstanceOf(KrtError);
    expect(error.name).toBe(name);
    expect(run(error)).toEqual({ code: exit, stderr: `krt: ${error.message}\n` });
  });

  it('are never a bare Error in the code krt generates for services either (the router packages)', () => {
    const routers = path.join(__dirname, '..', 'generated', 'router');
    const found = readdirSync(routers).flatMap((topology) => {
      const file = path.join(routers, topology, 'index.js');
      return plainErrorsIn(file).map((line) => `generated/router/${topology}/index.js:${line}`);
    });
    expect(readdirSync(routers).length).toBeGreaterThan(0);
    expect(found).toEqual([]);
  });

  it("names the principal of the command that met missing credentials, not the replay principal's everywhere", () => {
    expect(run(new MissingCredentialsError(), 'monitor').stderr).toContain("the topology's monitor principal");
    expect(run(new MissingCredentialsError(), 'dlq').stderr).not.toContain('monitor principal');
  });

  it("escapes a DLQ error's quoted bytes, new lines included, so a header cannot forge a line of output", () => {
    expect(run(new DlqError('no tier for original topic orders\n\u001b[2Jkrt: all good')).stderr).toBe('krt: no tier for original topic orders\\x0a\\x1b[2Jkrt: all good\n');
  });

  it('keeps the new lines of a multi-line problem list', () => {
    expect(run(new ScenarioError('records.0.key: required\nrecords.1.key: required')).stderr).toBe('krt: records.0.key: required\nrecords.1.key: required\n');
  });

  it('reports a defect of krt as one, with the stack to file, and fails the command', () => {
    const { code, stderr } = run(new DefectError('two emitters produced a.tf'));
    expect(code).toBe(EXIT.problems);
    expect(stderr).toMatch(/^krt: two emitters produced a\.tf \(a defect of kafka-retry-topology: please report it with the command you ran\)\nDefectError: two emitters/);
  });

  it('lets a crash that is not ours propagate rather than hide it behind an exit code', () => {
    expect(() => run(new TypeError('x is undefined'))).toThrow(TypeError);
  });
});
