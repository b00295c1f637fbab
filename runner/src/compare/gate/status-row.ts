// The status row: a benchmark that turns invalid / unsupported / failed after having been ok.
import type { CheckedRow } from './decide.ts';
import { rowBase, type Evaluation, type Series, type SeriesPoint } from './series.ts';
import type { GateVerdict } from './types.ts';
import { baselineWindow } from './window.ts';

/** Turning not-ok after having been ok is a regression; no test needed. Null while ok. */
export function statusRow(ev: Evaluation, series: Series): CheckedRow | null {
  const { result } = series;
  const completed = (p: SeriesPoint): boolean => p.result.status !== 'interrupted';
  const previous = series.points.filter(completed).at(-1)?.result.status ?? null;
  if (result.status === 'ok' && (previous === null || previous === 'ok')) return null;
  const { window, frozenFrom } = baselineWindow(ev, series, 'status', null, completed);
  const okInWindow = window.filter((p) => p.result.status === 'ok').length;
  const notes: string[] = result.reason ? [result.reason] : [];
  let verdict: GateVerdict;
  if (result.status === 'interrupted') verdict = 'insufficient data';
  else if (result.status === 'ok') verdict = 'improvement';
  else if (okInWindow > 0) verdict = 'regression';
  else {
    verdict = 'no baseline';
    notes.push(`not ok in any of the ${window.length} baseline run(s)`);
  }
  return {
    row: {
      ...rowBase(series),
      kind: 'status',
      baselineRuns: window.map((p) => p.run.runId),
      frozenFrom,
      pValue: null,
      verdict,
      current: result.status,
      previous,
      okInWindow,
      notes,
    },
    noBaseline: verdict === 'no baseline' ? 'not ok in any baseline run' : null,
    oneNight: null,
  };
}
