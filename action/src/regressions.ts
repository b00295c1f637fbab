// Regressions come from `runtime-bench check` (the history gate: Holm-adjusted tests AND a
// practical threshold); this module only turns its JSON report into lines for the summary. Pure.

/** The parts of `runtime-bench check --format json` the action reads. */
export interface CheckReport {
  counts: { regression: number; ongoing: number };
  rows: {
    kind: string;
    benchmark: string;
    target: string;
    metric?: string;
    verdict: string;
    change?: number | null;
    adjustedP?: number | null;
  }[];
}

/** One line per new regression, e.g. `operations.container.lifecycle StartContainer on containerd/runc: +12.0 % (p = 0.003)`. */
export function regressionLines(report: CheckReport): string[] {
  return report.rows
    .filter((r) => r.verdict === 'regression')
    .map((r) => {
      const what = [r.benchmark, r.kind === 'metric' ? r.metric : r.kind].filter(Boolean).join(' ');
      const change =
        typeof r.change === 'number' ? `: ${r.change >= 0 ? '+' : ''}${(r.change * 100).toFixed(1)} %` : '';
      const p = typeof r.adjustedP === 'number' ? ` (Holm-adjusted p = ${r.adjustedP.toPrecision(2)})` : '';
      return `${what} on ${r.target}${change}${p}`;
    });
}
