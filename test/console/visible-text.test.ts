import { visibleLine, visibleText } from '../../src/util/visible-text';

describe('visibleText: what a human reads is what the bytes say', () => {
  it('writes ESC, other controls, DEL and C1 controls as \\x escapes', () => {
    expect(visibleText('\u001b[31mred\u001b[0m\u0007\u007f\u009b')).toBe('\\x1b[31mred\\x1b[0m\\x07\\x7f\\x9b');
  });

  it('writes bidi overrides, isolates, zero-width and separator characters as \\u escapes', () => {
    expect(visibleText('a\u202Eb\u2066c\u200Bd\u2028e\uFEFF')).toBe('a\\u202eb\\u2066c\\u200bd\\u2028e\\ufeff');
  });

  it('leaves ordinary text of any script alone', () => {
    expect(visibleText('Bestellung für Zoë — 注文 №7 ✓')).toBe('Bestellung für Zoë — 注文 №7 ✓');
  });

  it('escapes new lines inside a printed line, keeping those that begin and end it', () => {
    expect(visibleLine('\nkey=a\r\nfake line\n')).toBe('\nkey=a\\x0d\\x0afake line\n');
  });
});
