// How one matrix cell is shown: its text, its ratio to the row's best (or to the chosen
// reference), a significance glyph, a heat-map shade and the details on hover or tap. Shared by
// components/Cell.astro and the browser, which redraws cells after a filter (client/matrix.ts).
// Pure and browser-safe.
import { formatChange, formatP, formatRatio, formatTime, formatValue } from '@runtime-bench/runner/format';
import type { CellOrigin, MatrixCell } from './matrix-row.ts';

export interface CellColumn {
  label: string;
  run: { runId: string; startedAt: string };
}

export interface CellView {
  cls: string;
  text: string;
  rel: string;
  glyph: string;
  /** 0 … 1: how far from the best, for the shade */
  heat: number;
  /** the sort key of the cell in its column */
  sort: number;
  /** data-kind: the relation (best, ratio, apart, …) or the status */
  kind: string;
  details: string[];
}

export function cellView(
  cell: MatrixCell,
  unit: string,
  direction: 'lower' | 'higher',
  column: CellColumn,
  metricLabel: string,
  /** the row is shown relative to a chosen reference cell rather than to its best */
  relative = false,
  /** the run the cell's numbers come from, when known (else the column's run) */
  origin?: CellOrigin,
): CellView {
  /** Badness of a ratio in the metric's direction: 1 is the best, 2 twice as bad. */
  const badness = (ratio: number) => (direction === 'lower' ? ratio : 1 / ratio);
  let cls: string;
  let text: string;
  let rel = '';
  let glyph = '';
  let heat = 0;
  let sort = Number.MAX_SAFE_INTEGER;
  const details: string[] = [`${metricLabel} · ${column.label}`];
  if (cell.kind === 'missing') {
    cls = 'cell-missing';
    text = '—';
    details.push('no run of this combination measured this benchmark');
  } else if (cell.kind === 'status' && cell.status === 'ok') {
    // the benchmark ran, but reported no samples of this metric: nothing was measured to be "ok"
    cls = 'cell-status cell-not-measured';
    text = 'not measured';
    details.push('the benchmark ran but reported no samples of this metric');
  } else if (cell.kind === 'status') {
    cls = `cell-status cell-${cell.status}`;
    text = cell.status;
    details.push(`${cell.status}${cell.reason ? `: ${cell.reason}` : ''}`);
  } else {
    text = formatValue(cell.median, unit);
    const v = cell.verdict;
    const r = cell.relation;
    details.push(
      `median ${text}, n = ${cell.n}${cell.errors ? `, ${cell.errors} errors` : ''}`,
      cell.interval
        ? `95 % CI of the median ${formatValue(cell.interval.lower, unit)} – ${formatValue(cell.interval.upper, unit)}`
        : 'too few samples for a 95 % CI of the median',
    );
    const against = relative ? 'the reference' : 'the best';
    if (cell.status !== 'ok') {
      cls = `cell-status cell-${cell.status}`;
      rel = cell.status;
      details.push(`${cell.status}${cell.reason ? `: ${cell.reason}` : ''} — not compared`);
    } else {
      cls = 'cell-value';
      if (r.kind === 'best') {
        cls += ' cell-best';
        rel = 'best';
        glyph = '★';
        sort = 1;
        details.push(
          v.kind === 'best' && v.tied > 0 ? `best; ${v.tied} other(s) not significantly different` : 'best',
        );
      } else if (r.kind === 'reference') {
        cls += ' cell-reference';
        rel = 'reference';
        sort = 1;
        details.push('the reference the other cells of the row are compared with');
      } else if (r.kind === 'tie') {
        rel = '= best';
        glyph = '=';
        sort = 1;
        details.push('same median as the best: a tie, so no cell is "best"');
      } else if (r.kind === 'ratio') {
        const b = badness(r.ratio);
        rel = formatRatio(r.ratio);
        sort = b;
        heat = Math.min(1, Math.max(0, Math.log(b) / Math.log(2)));
        details.push(`${formatChange(r.ratio - 1)} vs ${relative ? 'the reference' : 'best'}`);
      } else if (r.kind === 'apart') {
        // other parameters or a limit not enforced: shown, never ranked against the row
        cls += ' cell-apart';
        rel = r.label;
        details.push(`${r.label}: ${r.why} — not compared with this row`);
      } else if (r.kind === 'difference') {
        rel = `${r.difference > 0 ? '+' : '−'}${formatValue(Math.abs(r.difference), unit)}`;
        sort = 1 + Math.abs(r.difference);
        heat = 0.5;
        details.push(`${rel} vs ${relative ? 'a reference' : 'a best'} of 0 (a ratio to 0 is undefined)`);
      }
      if ((v.kind === 'worse' || v.kind === 'not-significant') && r.kind !== 'tie') {
        glyph = v.kind === 'worse' ? '✱' : '≈';
        if (v.kind === 'not-significant') heat *= 0.35;
        else cls += ' cell-worse';
        details.push(
          `${v.kind === 'worse' ? 'significantly different from' : 'not significantly different from'} ${against} (Mann–Whitney, Holm) ${formatP(v.pValue)}` +
            (v.lower !== null && v.upper !== null
              ? `; ratio 95 % CI ${formatRatio(v.lower)} – ${formatRatio(v.upper)}`
              : ''),
        );
      } else if (v.kind === 'untested' && r.kind !== 'apart') {
        glyph = glyph || '?';
        details.push(`not tested: ${v.why}`);
      }
    }
  }
  const from = origin ?? column.run;
  details.push(`run ${from.runId} · ${formatTime(from.startedAt)}${origin ? ` · ${origin.versions}` : ''}`);
  if (origin && origin.runId !== column.run.runId) {
    glyph = `${glyph} ‡`.trim();
    details.push(
      `from an earlier run of this column: its newest run (${column.run.runId}) did not measure this benchmark`,
    );
  }
  const kind =
    cell.kind === 'value'
      ? cell.status === 'ok'
        ? cell.relation.kind
        : cell.status
      : cell.kind === 'status'
        ? cell.status === 'ok'
          ? 'not-measured'
          : cell.status
        : 'missing';
  return { cls, text, rel, glyph, heat, sort, kind, details };
}
