import { readFileSync } from 'node:fs';

/** htmx from its package, served by the console itself: no front-end build, nothing from elsewhere. */
export function htmxScript(): string {
  return readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8');
}

export const CONSOLE_CSS = `
:root { --fg: #1d232a; --muted: #5b6670; --line: #d7dde3; --accent: #0b5cad; --warn: #9a3b00; --ok: #1d6b35; --bg-soft: #f4f6f8; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); margin: 0; }
header { background: #14202c; color: #fff; padding: 8px 20px; display: flex; gap: 20px; align-items: baseline; }
header a { color: #cfe3ff; }
header .mode { margin-left: auto; font-size: 12px; }
main { padding: 16px 20px 40px; max-width: 1400px; }
h1 { font-size: 20px; margin: 8px 0 12px; } h2 { font-size: 16px; margin: 20px 0 8px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
pre { background: var(--bg-soft); padding: 8px; overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-all; }
.muted { color: var(--muted); } .warn { color: var(--warn); } .ok { color: var(--ok); }
.panel { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 10px 0; background: #fff; }
.route { border-left: 4px solid var(--accent); background: #eef5fc; padding: 8px 12px; margin: 8px 0; }
form.inline { display: inline; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; }
.filters label, .action label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
input[type=text], input[type=number], input[type=datetime-local], select { font: inherit; padding: 3px 6px; }
button { font: inherit; padding: 4px 10px; cursor: pointer; }
button.danger { border-color: var(--warn); color: var(--warn); }
.actions { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
.action { display: flex; flex-direction: column; gap: 6px; }
.error { color: #fff; background: var(--warn); padding: 8px 12px; border-radius: 4px; }
progress { width: 260px; }
.pager { display: flex; gap: 12px; align-items: center; }
`;
