// One renderer per format, each escaping for its own format.
import { describe, expect, test } from 'vitest';
import {
  escapeHtml,
  escapeMarkdown,
  htmlTable,
  markdownTable,
  sanitizeTerminal,
  terminalTable,
} from '../../../src/format/index.ts';

const EVIL_TERMINAL = 'x\u001b]0;pwned\u0007\u001b[2Jy\u009b31m';
const EVIL_HTML = '</script><script>alert(1)</script>';

describe('terminal', () => {
  test('control characters become visible escapes; nothing reaches the terminal raw', () => {
    expect(sanitizeTerminal(EVIL_TERMINAL)).toBe('x\\x1b]0;pwned\\x07\\x1b[2Jy\\x9b31m');
    expect(sanitizeTerminal('a\nb\tc')).toBe('a b c');
    expect(sanitizeTerminal('a\nb', { multiline: true })).toBe('a\nb');
    expect(sanitizeTerminal('ab\u202ecd')).toBe('ab\\x202ecd');
  });

  test('columns align by display width; numeric columns right-aligned', () => {
    const out = terminalTable(
      ['name', 'median'],
      [
        ['µs-one', '3 ms'],
        [EVIL_TERMINAL, '12.5 ms'],
      ],
    );
    const lines = out.split('\n');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(lines[2]).toBe(`µs-one${' '.repeat(sanitizeTerminal(EVIL_TERMINAL).length - 6)}     3 ms`);
    expect(lines.every((l) => [...l].length === [...lines[1]!].length)).toBe(true);
  });
});

describe('markdown', () => {
  test('HTML, pipes and code spans are neutralised', () => {
    expect(escapeMarkdown(EVIL_HTML)).toBe('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeMarkdown('a|b`c`')).toBe('a\\|b\\`c\\`');
    const t = markdownTable(['target', 'n'], [[EVIL_HTML, '5']]);
    expect(t).not.toContain('<');
    expect(t.split('\n')[1]).toBe('| --- | ---: |');
  });
});

describe('html', () => {
  test('cells are text, never markup', () => {
    expect(escapeHtml(`"'&`)).toBe('&quot;&#39;&amp;');
    const t = htmlTable(['target'], [[EVIL_HTML]], { className: 'x' });
    expect(t).toContain('<td>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(t.match(/<script/g)).toBeNull();
  });
});
