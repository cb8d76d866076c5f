import { stringify } from 'yaml';

/**
 * YAML text of a JSON-like document, byte for byte what `stringify(document, { lineWidth: 0 })`
 * of the `yaml` package writes, without the package's node tree: building it for the
 * rules and rule tests of a large topology took most of the Prometheus emitter's time
 * (the figures are in docs/benchmarks.md). Only the layout is done here (block
 * maps and sequences, indented as the package indents them); any scalar that is not
 * plainly safe to write bare is rendered by the package itself, and a document with
 * anything else (multi-line strings, nested sequences, non-integer numbers) is handed to
 * the package whole. A property test compares the two on random documents.
 */
export function yamlText(document: Readonly<Record<string, unknown>>): string {
  try {
    if (Object.keys(document).length === 0) throw new NotHandledHere();
    const lines: string[] = [];
    writeMap(document, '', lines);
    return `${lines.join('\n')}\n`;
  } catch (error) {
    if (error instanceof NotHandledHere) return stringify(document, { lineWidth: 0 });
    throw error;
  }
}

class NotHandledHere extends Error {}

/** What the package writes bare: nothing it would quote, fold or read back as another type. */
const UNSAFE_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(?:%|---|\.\.\.)/;
/** What the package double-quotes without escapes or folding (lineWidth 0): one printable line without `"` or `\`. */
const PLAIN_DOUBLE_QUOTED = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
/** The core schema's resolvers: a bare scalar matching one would read back as null, a boolean or a number. */
const CORE_TYPES = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];

const quoted = new Map<string, string>();

function scalar(value: unknown): string {
  if (typeof value === 'string') {
    if (PRINTABLE_ASCII.test(value) && !DOCUMENT_MARKER.test(value)) {
      if (!UNSAFE_PLAIN.test(value) && !CORE_TYPES.some((type) => type.test(value))) return value;
      if (PLAIN_DOUBLE_QUOTED.test(value)) return `"${value}"`;
    }
    let text = quoted.get(value);
    if (text === undefined) {
      const rendered = stringify(value, { lineWidth: 0 });
      // One line and its newline, or the package chose a layout (a block scalar) that depends on the context.
      if (rendered.indexOf('\n') !== rendered.length - 1) throw new NotHandledHere();
      text = rendered.slice(0, -1);
      if (quoted.size < 10_000) quoted.set(value, text);
    }
    return text;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  throw new NotHandledHere();
}

function key(name: string): string {
  const text = scalar(name);
  if (text !== name) throw new NotHandledHere();
  return text;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/** `key: value` pairs at `indent`; `first` replaces the indent of the first line (a sequence item's `- `). */
function writeMap(map: Readonly<Record<string, unknown>>, indent: string, lines: string[], first = indent): void {
  let lead = first;
  for (const [name, value] of Object.entries(map)) {
    if (value === undefined) throw new NotHandledHere();
    const head = `${lead}${key(name)}:`;
    lead = indent;
    if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${head} []`);
      else {
        lines.push(head);
        writeSeq(value, `${indent}  `, lines);
      }
    } else if (isMap(value)) {
      if (Object.keys(value).length === 0) lines.push(`${head} {}`);
      else {
        lines.push(head);
        writeMap(value, `${indent}  `, lines);
      }
    } else lines.push(`${head} ${scalar(value)}`);
  }
  if (lead === first && first !== indent) throw new NotHandledHere();
}

function writeSeq(items: readonly unknown[], indent: string, lines: string[]): void {
  for (const item of items) {
    if (Array.isArray(item)) throw new NotHandledHere();
    if (isMap(item)) {
      if (Object.keys(item).length === 0) lines.push(`${indent}- {}`);
      else writeMap(item, `${indent}  `, lines, `${indent}- `);
    } else lines.push(`${indent}- ${scalar(item)}`);
  }
}
