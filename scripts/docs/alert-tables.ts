/**
 * The alert tables of the docs, written from ALERT_MODULES (`npm run docs:alerts`): the
 * alert table and the inhibit table of docs/alerts.md, the presets table and the list of
 * override keys of docs/spec.md. test/alerts.test.ts refuses docs that differ from what
 * this writes, so adding an alert is its module and its entry, then this command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ALERT_MODULES, explanationsOf } from '../../src/alerts';
import type { AlertKey, AlertModule } from '../../src/alerts';
import { formatDuration } from '../../src/duration';
import type { AlertPolicy } from '../../src/model/types';
import { CRITICALITIES } from '../../src/spec/types';

const code = (text: string) => `\`${text}\``;
const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const table = (header: readonly string[], rows: readonly (readonly string[])[]) => [row(header), `|${header.map(() => '---|').join('')}`, ...rows.map(row)].join('\n');

function alertTable(): string {
  return table(['alert', 'what it means', 'query (simplified)'], ALERT_MODULES.map((alert) => [code(alert.name), alert.docs.meaning, alert.docs.query]));
}

function inhibitTable(): string {
  const explaining = explanationsOf(ALERT_MODULES); // in the order of the inhibit rules
  const moduleOf = (key: string): AlertModule<AlertKey> => ALERT_MODULES.find((alert) => alert.key === key)!;
  return table(
    ['while this fires', 'these are held back', 'because'],
    explaining.map(({ source, targets }) => [code(moduleOf(source).name), targets.map((t) => code(moduleOf(t).name)).join(', '), moduleOf(source).docs.explainsBecause ?? '']),
  );
}

const presetCell = (policy: AlertPolicy) => `${policy.threshold}${policy.forMs ? ` for ${formatDuration(policy.forMs)}` : ''}, ${policy.severity}`;

function presetsTable(): string {
  return table(['alert', 'threshold unit', ...CRITICALITIES], ALERT_MODULES.map((alert) => [code(alert.key), alert.thresholdUnit, ...CRITICALITIES.map((c) => presetCell(alert.presets[c]))]));
}

/** The table that starts with `header` (a line of its own) put in place of the one there. */
function replaceTable(text: string, header: string, replacement: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`no table whose header is ${header}`);
  let end = start;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  return [...lines.slice(0, start), replacement, ...lines.slice(end)].join('\n');
}

/** docs/alerts.md with its alert and inhibit tables as the modules state them. */
export function alertsDocWithTables(text: string): string {
  return replaceTable(replaceTable(text, '| alert | what it means | query (simplified) |', alertTable()), '| while this fires | these are held back | because |', inhibitTable());
}

/** docs/spec.md with its presets table and its list of override keys as the modules state them. */
export function specDocWithTables(text: string): string {
  const keys = `alerts ${ALERT_MODULES.map((alert) => code(alert.key)).join(', ')} |`;
  return replaceTable(text, `| alert | threshold unit | ${CRITICALITIES.join(' | ')} |`, presetsTable()).replace(/(\| `alerts\.<alert>\.threshold`[^\n]*?; )alerts [^\n]*\|$/m, (_, head: string) => `${head}${keys}`);
}

export const ALERT_DOCS = { 'alerts.md': alertsDocWithTables, 'spec.md': specDocWithTables } as const;

// Run as a script (jiti sets no require.main for the file it runs).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === __filename) {
  for (const [name, write] of Object.entries(ALERT_DOCS)) {
    const file = path.join(__dirname, '..', '..', 'docs', name);
    const before = readFileSync(file, 'utf8');
    const after = write(before);
    if (after !== before) writeFileSync(file, after);
    process.stdout.write(`${after === before ? 'unchanged' : 'wrote'} docs/${name}\n`);
  }
}
