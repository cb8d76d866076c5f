import { runbookFileName } from '../../naming';
import type { Emitter } from '../types';
import { runbookTemplates } from './templates';
import { aclIndex, runbookIndexView, runbookView } from './view-model';

/** `runbooks/<consumer>.md` for every consumer, and `runbooks/README.md` listing them. */
export const emitRunbooks: Emitter = (model) => [...emitRunbookPages(model), ...emitRunbookIndex(model)];

/** `runbooks/<consumer>.md` for every consumer: each reads its own topology only. */
export const emitRunbookPages: Emitter = (model) => {
  const templates = runbookTemplates();
  return model.topologies.flatMap((topology) => {
    const acls = aclIndex(topology);
    return topology.consumers.map((consumer) => ({
      path: `runbooks/${runbookFileName(consumer.name)}`,
      content: tidy(templates.page(runbookView(topology, consumer, acls))),
    }));
  });
};

/** `runbooks/README.md`, listing the consumers of every topology. */
export const emitRunbookIndex: Emitter = (model) => [{ path: 'runbooks/README.md', content: tidy(runbookTemplates().index(runbookIndexView(model.topologies))) }];

/** One blank line at most between blocks and one newline at the end, whatever the template's layout. */
function tidy(markdown: string): string {
  return `${markdown.replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
