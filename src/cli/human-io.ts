import { visibleLine } from '../util/visible-text';
import type { CliIo } from './io';

/**
 * The io of human-readable output: what it prints to stdout has every control and bidi
 * character of record keys, headers and client ids escaped (`\x1b`, `\u202e`), so nothing a
 * producer wrote can move the cursor, fake a line, hide text or plant a link in the
 * on-call engineer's terminal. `--json` output keeps the plain io: it stays exact.
 */
export function humanIo(io: CliIo): CliIo {
  // Lines written together are escaped each alone: the new lines between them are the command's.
  return { ...io, stdout: (text) => io.stdout(visibleLine(text)), stdoutLines: (lines) => io.stdout(lines.map(visibleLine).join('')) };
}
