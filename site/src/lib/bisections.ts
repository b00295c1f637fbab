// Bisections on the site: a page per report (`/bisect/<id>/`), linked from the regression it
// explains — a finding of the same benchmark and metric whose change point came with the version
// change the bisection started from ("runc 1.1.5 → 1.2.0" for --good 1.1.5 --bad 1.2.0). Pure.
import type { BisectReport } from '@runtime-bench/schemas';
import { splitMetricKey, type GateChangePoint } from '@runtime-bench/runner/compare';

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

/**
 * The bisections of a version change measured side by side (newest first): a regression of the
 * metric (`benchmark:metric`, as check keys it) between exactly the pair's two versions.
 */
export function bisectionsOfVersionChange(
  change: { label: string; metric: string; verdict: string },
  bisections: readonly LoadedBisection[],
): LoadedBisection[] {
  if (change.verdict !== 'regression') return [];
  const { benchmark, metric } = splitMetricKey(change.metric);
  return bisections
    .filter(
      ({ report: r }) =>
        r.benchmark === benchmark &&
        r.metric === metric &&
        r.direction !== 'faster' &&
        bisectedChange(r) === change.label,
    )
    .sort((a, b) => Date.parse(b.report.startedAt) - Date.parse(a.report.startedAt));
}

type Step = BisectReport['steps'][number];

/** Whether a step's ratio interval holds 1 (no change); null without an interval. */
function intervalHoldsOne(step: Step): boolean | null {
  return step.effect ? step.effect.lower <= 1 && 1 <= step.effect.upper : null;
}

/**
 * A step's verdict as the page prints it: the stored verdict, and — where its printed interval
 * says otherwise ("same" beside an interval that excludes 0 %, "differ" beside one that holds it)
 * — both, with what came of it. The verdict is the sequential test's; the interval is a bootstrap
 * of the same rounds, and the two can disagree near the boundary.
 */
export function stepVerdict(report: BisectReport, i: number): string {
  const step = report.steps[i]!;
  const holds = intervalHoldsOne(step);
  const contradicts =
    (step.verdict === 'same' && holds === false) || (step.verdict === 'differ' && holds === true);
  if (!contradicts) return step.verdict;
  const again = report.steps
    .slice(i + 1)
    .find(
      (s) => s.kind === step.kind && s.candidate.label === step.candidate.label && s.attempt > step.attempt,
    );
  const interval = holds ? 'interval holds 0 %' : 'interval excludes 0 %';
  return (
    `${step.verdict} (the sequential test's verdict; its ${interval})` +
    (again ? `; attempt ${again.attempt} judged it again: ${again.verdict}` : '')
  );
}

/** The version labels its steps judged good and bad, in step order (ends excluded). */
export function judged(report: BisectReport): { good: string[]; bad: string[] } {
  const of = (v: Step['verdict']) => [
    ...new Set(
      report.steps.filter((s) => s.kind === 'candidate' && s.verdict === v).map((s) => s.candidate.label),
    ),
  ];
  return { good: of('good'), bad: of('bad') };
}

/**
 * What the report found, in the lines the page heads it with: for a finished bisection the
 * runner's own, for one that stopped (budget spent, a failure) "unfinished", what it narrowed the
 * change to and what its steps judged — never a "first bad release" it did not establish.
 */
export function bisectFindings(report: BisectReport, runnerLines: readonly string[]): string[] {
  if (report.outcome !== 'budget-exhausted' && report.outcome !== 'failed') return [...runnerLines];
  // the runner's lines: what, outcome, first bad release, first bad commit, [undecided], effect, …
  const [what, , , , ...rest] = runnerLines;
  const firstLine = report.message.split('\n')[0]!;
  const steps = judged(report);
  // a bisection narrows monotonically: its latest good and latest bad steps bound the change
  const lastGood = report.lastGoodCommit?.label ?? report.lastGoodRelease ?? steps.good.at(-1) ?? report.good;
  const firstBadSeen =
    report.firstBadCommit?.label ?? report.firstBadRelease ?? steps.bad.at(-1) ?? report.bad;
  const why = report.outcome === 'budget-exhausted' ? 'budget spent' : 'failed';
  const undecided = rest.filter((l) => l.startsWith('undecided'));
  const tail = rest.filter((l) => !l.startsWith('undecided'));
  return [
    what!,
    `outcome: ${report.outcome} — ${firstLine}`,
    `unfinished (${why}), narrowed to ${lastGood}..${firstBadSeen}`,
    `its steps judged good: ${steps.good.join(', ') || 'none'}; bad: ${steps.bad.join(', ') || 'none'}`,
    ...undecided,
    ...tail,
  ];
}
