import type { DashboardInput } from './dashboard';
import { buildDashboard } from './dashboard';

/** Stands for the panels in the dashboard's JSON until their text goes in its place. */
const PANELS_MARK = '\u0000krt-panels\u0000';
/** A panel's depth in the dashboard's JSON (dashboard > panels > panel), at two spaces a level. */
const PANEL_INDENT = '    ';

/**
 * The dashboard's file text, exactly `JSON.stringify(topologyDashboard(input), null, 2)`
 * and a newline, with each consumer's panels serialized as soon as they are built: the
 * panels are almost all of a dashboard, and a topology of 1,000 consumers would otherwise
 * hold some 8,000 panel objects and then their 35 MB of text at once.
 */
export function dashboardText(input: DashboardInput): string {
  const panels: string[] = [];
  const dashboard = buildDashboard(input, (built) => {
    for (const panel of built) panels.push(indented(JSON.stringify(panel, null, 2)));
  });
  if (panels.length === 0) return `${JSON.stringify(dashboard, null, 2)}\n`;
  dashboard.panels = [PANELS_MARK as never];
  // A function, so that no `$` in a panel's text is read as a replacement pattern.
  return `${JSON.stringify(dashboard, null, 2).replace(`${PANEL_INDENT}${JSON.stringify(PANELS_MARK)}`, () => panels.join(',\n'))}\n`;
}

function indented(text: string): string {
  return PANEL_INDENT + text.replaceAll('\n', `\n${PANEL_INDENT}`);
}
