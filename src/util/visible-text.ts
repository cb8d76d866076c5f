/**
 * Characters that change how text around them is shown rather than showing themselves, by
 * their Unicode category, not a list of ranges (a list missed the TAG characters and the soft
 * hyphen): controls (Cc: C0 and C1, DEL; ESC starts terminal sequences: colours, cursor
 * moves, OSC 8 links, a fake new line), format characters (Cf: bidirectional overrides and
 * isolates, zero-width characters, the soft hyphen, TAG characters, interlinear
 * annotations), line and paragraph separators (Zl, Zp), and the whole TAG block, whose
 * unassigned code points hide text the same way. Record keys, values, headers and client
 * ids are anyone's bytes.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{e0000}-\u{e007f}]/gu;
const INVISIBLE_KEEPING_LINES = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{e0000}-\u{e007f}]/gu;

function escaped(c: string): string {
  const code = c.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
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
