import type { RunResult } from '@runtime-bench/schemas';
import { formatNumber, renderTable } from '../util/table.ts';

/** The end-of-run table: one row per benchmark × target × metric with median, spread, n and errors. */
export function summaryTable(result: RunResult): string {
  const rows: string[][] = [];
  for (const r of result.results) {
    for (const m of r.metrics) {
      const s = m.summary;
      rows.push([
        r.benchmark,
        r.target,
        m.name,
        m.unit,
        s ? formatNumber(s.median) : '–',
        s ? formatNumber(s.p90) : '–',
        s?.stdev != null ? formatNumber(s.stdev) : '–',
        String(s?.n ?? 0),
        String(m.errors.count),
        r.status === 'ok' ? 'ok' : `${r.status}`,
      ]);
    }
  }
  return renderTable(
    ['benchmark', 'target', 'metric', 'unit', 'median', 'p90', 'stdev', 'n', 'errors', 'status'],
    rows,
  );
}

/** One line per result whose status is not ok, with its reason. */
export function problemLines(result: RunResult): string[] {
  return result.results
    .filter((r) => r.status !== 'ok')
    .map((r) => `${r.benchmark} on ${r.target}: ${r.status}${r.reason ? ` — ${r.reason}` : ''}`);
}
