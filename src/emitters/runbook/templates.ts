import { readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import { ALERT_MODULES } from '../../alerts';
import type { AlertModule } from '../../alerts';
import { filesUnder } from '../../util/files-under';
import { TEMPLATES_DIR } from '../../util/templates-dir';

/** The partial of an alert's runbook section, made of its module's `runbookTemplate`. */
export function alertTemplate(alert: AlertModule): string {
  return `runbook/alerts/${alert.name}`;
}

export interface RunbookTemplates {
  readonly page: Handlebars.TemplateDelegate;
  readonly index: Handlebars.TemplateDelegate;
}

let cached: RunbookTemplates | undefined;

/**
 * Compiles the runbook templates once. Strict: a field the template names but the view
 * lacks is an error, never an empty string in a runbook someone reads at 3 a.m.
 */
export function runbookTemplates(): RunbookTemplates {
  if (cached) return cached;
  const handlebars = Handlebars.create();
  const options = { strict: true, noEscape: true } as const;
  for (const file of filesUnder(path.join(TEMPLATES_DIR, 'runbook'), (name) => name.endsWith('.md.hbs'))) {
    const name = path.relative(TEMPLATES_DIR, file).replace(/\.md\.hbs$/, '');
    handlebars.registerPartial(name, handlebars.compile(readFileSync(file, 'utf8'), options));
  }
  for (const alert of ALERT_MODULES) handlebars.registerPartial(alertTemplate(alert), handlebars.compile(alert.runbookTemplate, options));
  const compile = (name: string) => handlebars.compile(readFileSync(path.join(TEMPLATES_DIR, `${name}.md.hbs`), 'utf8'), options);
  cached = { page: compile('runbook/page'), index: compile('runbook/index') };
  return cached;
}
