import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { Dashboard, Panel } from '@grafana/grafana-foundation-sdk/dashboard';
import { emitGrafana, topologyDashboard } from '../src/emitters/grafana';
import { REPO_ROOT } from './helpers/project';
import { aTopology, compile } from './helpers/specs';

jest.setTimeout(120_000);

/**
 * The JSON form of an SDK type: string enums become their values, methods (the SDK's
 * variant markers) drop out, and `any` (panel options, custom field config) is checked
 * on its own against the panel plugin's type.
 */
const JSON_OF = `
type IsAny<T> = 0 extends 1 & T ? true : false;
type Json<T> = IsAny<T> extends true ? unknown
  : T extends (...args: never[]) => unknown ? never
  : T extends string ? \`\${T}\`
  : T extends number | boolean | null | undefined ? T
  : T extends readonly (infer U)[] ? Json<U>[]
  : { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: Json<T[K]> };`;

/**
 * Type-checks a dashboard's JSON, as object literals (so unknown fields are errors too),
 * against the foundation SDK's schema types: the dashboard, every Prometheus query, and
 * every panel's options and field config against its panel type. Returns tsc's errors.
 */
function sdkTypeErrors(dashboard: Dashboard): string[] {
  const panels = (dashboard.panels ?? []).filter((p): p is Panel => p.type !== 'row');
  const ofType = (type: string) => panels.filter((p) => p.type === type);
  const literal = (value: unknown) => JSON.stringify(value, null, 1);
  const source = `
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import type * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import type * as stat from '@grafana/grafana-foundation-sdk/stat';
import type * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
${JSON_OF}
export const theDashboard: Json<dashboard.Dashboard> = ${literal(dashboard)};
export const queries: Json<prometheus.Dataquery>[] = ${literal(panels.flatMap((p) => p.targets ?? []))};
export const timeseriesOptions: Json<timeseries.Options>[] = ${literal(ofType('timeseries').map((p) => p.options))};
export const timeseriesFieldConfig: Json<timeseries.FieldConfig>[] = ${literal(ofType('timeseries').map((p) => p.fieldConfig!.defaults.custom))};
export const statOptions: Json<stat.Options>[] = ${literal(ofType('stat').map((p) => p.options))};
`;
  // A virtual file inside the repository, so the SDK resolves from its node_modules.
  const file = path.join(REPO_ROOT, 'test', 'grafana-schema-check.generated.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => name === file || ts.sys.fileExists(name);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.getSourceFile = (name, language) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n').slice(-1)[0]!);
}

/** The example topologies' dashboards and the golden one with environment variables. */
const files = ['generated/grafana', 'test/golden/grafana'].flatMap((dir) => readdirSync(path.join(REPO_ROOT, dir)).sort().map((f) => `${dir}/${f}`));
const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('the generated dashboards against the Grafana foundation SDK’s schema types', () => {
  it.each(files)('%s type-checks as an SDK Dashboard, with its queries, options and field config', (file) => {
    expect(sdkTypeErrors(JSON.parse(read(file)))).toEqual([]);
  });

  it('reports a misspelt field and a wrong type, so the check above can fail', () => {
    const broken = JSON.parse(read('generated/grafana/orders.json'));
    broken.panels[1].tittle = 'Records per second';
    broken.panels[2].gridPos.w = '8';
    const errors = sdkTypeErrors(broken).join('\n');
    expect(errors).toMatch(/'"tittle"' does not exist in type/);
    expect(errors).toMatch(/Type 'string' is not assignable to type 'number'/);
  });

  it('round-trips: the file is the SDK builders’ dashboard, and parsing and writing it again changes nothing', () => {
    const model = compile(aTopology()).model!;
    const [file] = emitGrafana(model);
    const built = topologyDashboard({ topology: model.topologies[0]!, environmentLabels: [] });
    expect(JSON.parse(file!.content)).toEqual(JSON.parse(JSON.stringify(built)));
    expect(`${JSON.stringify(JSON.parse(file!.content), null, 2)}\n`).toBe(file!.content);
  });
});
