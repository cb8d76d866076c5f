/**
 * Characters that change how text around them is shown rather than showing themselves:
 * C0 and C1 controls (ESC starts terminal sequences: colours, cursor moves, OSC 8 links,
 * a fake new line), DEL, and the Unicode formatting characters that reorder or hide text
 * (bidirectional overrides and isolates, zero-width characters, line and paragraph
 * separators). Record keys, values, headers and client ids are anyone's bytes.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const INVISIBLE_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every such character written as an escape (`\x1b`, `\u202e`), so what a
 * human reads is what the bytes say. For human-readable output only: `--json` stays exact.
 * `keepLines` leaves new lines and tabs, for multi-line text shown in a block of its own.
 */
export function visibleText(text: string, options: { keepLines?: boolean } = {}): string {
  return text.replace(options.keepLines ? INVISIBLE_KEEPING_LINES : INVISIBLE, escaped);
}

/**
 * What a command prints, made safe for a terminal: the new lines that begin and end the
 * chunk are the command's own and stay; every other invisible character came from data
 * (a key, a header, a client id) and is escaped, a new line inside included.
 */
export function visibleLine(chunk: string): string {
  const [, before, body, after] = /^(\n*)([\s\S]*?)(\n*)$/.exec(chunk)!;
  return `${before}${visibleText(body!)}${after}`;
}
