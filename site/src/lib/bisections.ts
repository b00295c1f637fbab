// Bisections on the site: a page per report (`/bisect/<id>/`), linked from the regression it
// explains — a finding of the same benchmark and metric whose change point came with the version
// change the bisection started from ("runc 1.1.5 → 1.2.0" for --good 1.1.5 --bad 1.2.0). Pure.
import type { BisectReport } from '@runtime-bench/schemas';
import type { GateChangePoint } from '@runtime-bench/runner/compare';

export interface LoadedBisection {
  /** runner/src/results/bisection-path.ts bisectionId: the page's path segment */
  id: string;
  report: BisectReport;
}

/** The page of a bisection, below the site's base. */
export function bisectionPagePath(id: string): string {
  return `bisect/${id}/`;
}

/** The version change a bisection starts from, as the gate words it. */
export function bisectedChange(report: Pick<BisectReport, 'component' | 'good' | 'bad'>): string {
  return `${report.component} ${report.good} → ${report.bad}`;
}

/**
 * The bisections that explain a finding (newest first): same benchmark and metric, a change the
 * bisection's direction calls bad (a regression of a bisection of "slower", an improvement of one
 * of "faster"), and the bisected version change among those at its change point.
 */
export function bisectionsOf(
  finding: {
    benchmark: string;
    what: string;
    verdict: string;
    changePoint: Pick<GateChangePoint, 'versionChanges'> | null;
  },
  bisections: readonly LoadedBisection[],
): LoadedBisection[] {
  const changes = new Set(finding.changePoint?.versionChanges ?? []);
  const improvement = finding.verdict === 'improvement';
  return bisections
    .filter(
      ({ report: r }) =>
        r.benchmark === finding.benchmark &&
        r.metric === finding.what &&
        (r.direction === 'faster') === improvement &&
        changes.has(bisectedChange(r)),
    )
    .sort((a, b) => Date.parse(b.report.startedAt) - Date.parse(a.report.startedAt));
}
