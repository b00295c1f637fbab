// Regressions come from `runtime-bench check` (the history gate: Holm-adjusted tests AND a
// practical threshold); this module only turns its JSON report into lines for the summary, with
// the runner's own wording of change points and coverage. Pure.
import {
  coverageLines,
  formatChangePoint,
  formatNightFactor,
  type CheckReport,
  type GateRow,
} from '@runtime-bench/runner/compare';
import { formatChange } from '@runtime-bench/runner/format';
import {
  changeText,
  regressionEntries,
  versionChangeText,
  whatRegressed,
  type RegressionEntry,
} from './regression-report.ts';

/** `runtime-bench check --json` as the action reads it: the gate's report and the side-by-side verdicts. */
export type { CheckReport };

/** What the job summary says about the gate's verdict on this run. */
export interface CheckLines {
  /** new regressions, one line each (these fail the step with fail-on-regression) */
  regressions: string[];
  /** regressions already flagged on an earlier run, one line each */
  ongoing: string[];
  /** "28 of 324 rows checked", then one "N row(s) not checked: why" line per reason */
  coverage: string[];
  /** new and ongoing regressions with the version change, the change's basis and the site page */
  entries: RegressionEntry[];
}

/**
 * One line per row, e.g. `operations.container.lifecycle StartContainer on containerd/runc:
 * +12.0 % (Holm-adjusted p = 0.003); step +12 % [+8.1 %, +16 %] at 20261121T090317Z-de04a91c
 * (runc 1.1.5 → 1.3.6)`.
 */
function rowLine(r: GateRow): string {
  const what = [r.benchmark, r.kind === 'metric' ? r.metric : r.kind].join(' ');
  const change = r.kind === 'metric' && r.change !== null ? `: ${formatChange(r.change)}` : '';
  const p = r.adjustedP !== null ? ` (Holm-adjusted p = ${r.adjustedP.toPrecision(2)})` : '';
  const cp = r.kind === 'metric' && r.changePoint ? `; step ${formatChangePoint(r.changePoint)}` : '';
  return `${what} on ${r.target}${change}${p}${r.kind === 'metric' ? factorNote(r) : ''}${cp}`;
}

/**
 * "; raw +8.4 %, night factor −7.3 % (controls: containerd/crun)": the change before the night
 * factor was removed and where the factor came from; "" for reports without these fields.
 */
function factorNote(r: Extract<GateRow, { kind: 'metric' }>): string {
  if (r.rawChange === undefined || r.rawChange === null) return '';
  return `; raw ${formatChange(r.rawChange)}, night factor ${formatNightFactor(r)}`;
}

/**
 * Most important first, for the summary and the annotations GitHub caps at 10 a step: a benchmark
 * that stopped working (status), then error rates, then metrics by the size of the change.
 */
function byImportance(a: GateRow, b: GateRow): number {
  const rank = (r: GateRow): number => (r.kind === 'status' ? 0 : r.kind === 'error-rate' ? 1 : 2);
  const size = (r: GateRow): number => (r.kind === 'metric' && r.change !== null ? Math.abs(r.change) : 0);
  return rank(a) - rank(b) || size(b) - size(a);
}

/** The summary's lines of a gate report; `siteUrl` (the site-url input, or '') links the pages. */
export function checkLines(report: CheckReport, siteUrl = ''): CheckLines {
  const rows = (verdict: GateRow['verdict']): string[] =>
    report.rows
      .filter((r) => r.verdict === verdict)
      .sort(byImportance)
      .map(rowLine);
  const entries = regressionEntries(report, siteUrl);
  // A declared version change's regression measured side by side that the gate did not flag
  // across nights is a regression of the night too (as check --fail-on-regression counts it).
  const flagged = new Set(
    report.rows
      .filter((r) => r.verdict === 'regression' || r.verdict === 'ongoing regression')
      .map((r) => `${r.target}\u0000${r.benchmark}\u0000${r.kind === 'metric' ? r.metric : r.kind}`),
  );
  const sideBySideOnly = entries
    .filter((e) => !flagged.has(`${e.target}\u0000${e.benchmark}\u0000${e.metric}`))
    .map((e) => `${whatRegressed(e)}: ${changeText(e)} (${versionChangeText(e)})`);
  return {
    regressions: [...rows('regression'), ...sideBySideOnly],
    ongoing: rows('ongoing regression'),
    coverage: coverageLines(report.coverage),
    entries,
  };
}

/**
 * The verdicts on several result files (one per node in cluster mode) as one: regressions name
 * their target already; coverage lines get the file they are about when there are several.
 */
export function mergeCheckLines(parts: readonly CheckLines[], files: readonly string[]): CheckLines {
  if (parts.length === 1) return parts[0]!;
  return {
    regressions: parts.flatMap((p) => p.regressions),
    ongoing: parts.flatMap((p) => p.ongoing),
    coverage: parts.flatMap((p, i) => p.coverage.map((l) => `${files[i]}: ${l}`)),
    entries: parts.flatMap((p) => p.entries),
  };
}
