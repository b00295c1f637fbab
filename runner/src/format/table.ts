// One table renderer per output format: the terminal (aligned plain text), Markdown (GitHub
// job summaries and PR comments) and HTML. Each escapes its cells for its format, so callers
// pass raw strings and never escape by hand.
import { escapeHtml, escapeMarkdown, sanitizeTerminal } from './escape.ts';

export type Cell = string;
export type Align = 'left' | 'right';

export interface TableOptions {
  /**
   * Alignment per column. By default a column whose every cell looks like a number (with an
   * optional unit, sign or "–") is right-aligned.
   */
  align?: readonly Align[];
}

const NUMERIC = /^(?:[-+−±×]?[\d.,]+(?:e[-+]?\d+)?(?: ?[%a-zA-Zµ/]+)?|–)$/;

function alignments(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions,
): Align[] {
  return header.map(
    (_, i) =>
      options.align?.[i] ??
      (rows.length > 0 && rows.every((r) => NUMERIC.test(r[i] ?? '')) ? 'right' : 'left'),
  );
}

/** Display width of a string on a terminal, counting each code point once. */
function width(s: string): number {
  return [...s].length;
}

/** A plain-text table with aligned columns, safe to print on a terminal. */
export function terminalTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions = {},
): string {
  const clean = (r: readonly Cell[]) => header.map((_, i) => sanitizeTerminal(r[i] ?? ''));
  const h = clean(header);
  const body = rows.map(clean);
  const align = alignments(header, rows, options);
  const widths = h.map((c, i) => Math.max(width(c), ...body.map((r) => width(r[i]!))));
  const pad = (c: string, i: number) => {
    const fill = ' '.repeat(widths[i]! - width(c));
    return align[i] === 'right' ? fill + c : c + fill;
  };
  const line = (cells: readonly string[]) => cells.map(pad).join('  ').trimEnd();
  return [line(h), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** A GitHub-flavoured Markdown table whose cells are escaped (HTML, pipes, Markdown syntax). */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions = {},
): string {
  const align = alignments(header, rows, options);
  const line = (cells: readonly string[]) =>
    `| ${header.map((_, i) => escapeMarkdown(cells[i] ?? '')).join(' | ')} |`;
  return [
    line(header),
    `| ${align.map((a) => (a === 'right' ? '---:' : '---')).join(' | ')} |`,
    ...rows.map(line),
  ].join('\n');
}

/** An HTML table whose cells are escaped text. */
export function htmlTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions & { className?: string } = {},
): string {
  const align = alignments(header, rows, options);
  const attr = (i: number) => (align[i] === 'right' ? ' class="num"' : '');
  const cls = options.className ? ` class="${escapeHtml(options.className)}"` : '';
  return [
    `<table${cls}>`,
    `<thead><tr>${header.map((h, i) => `<th scope="col"${attr(i)}>${escapeHtml(h)}</th>`).join('')}</tr></thead>`,
    '<tbody>',
    ...rows.map(
      (r) => `<tr>${header.map((_, i) => `<td${attr(i)}>${escapeHtml(r[i] ?? '')}</td>`).join('')}</tr>`,
    ),
    '</tbody>',
    '</table>',
  ].join('\n');
}
