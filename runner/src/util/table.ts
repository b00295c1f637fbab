/** A plain-text table with aligned columns; numbers right-aligned. Pure, for terminals and logs. */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const isNumeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d.,]+(e[-+]?\d+)?$|^–$/.test(r[i] ?? '')),
  );
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (isNumeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A number with about four significant digits, without exponent noise for everyday magnitudes. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return value.toFixed(0);
  if (abs >= 100) return value.toFixed(1);
  if (abs >= 10) return value.toFixed(2);
  if (abs >= 1) return value.toFixed(3);
  if (abs === 0) return '0';
  return value.toPrecision(3);
}
