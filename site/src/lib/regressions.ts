// The Regressions page: what the regression gate (`runtime-bench check`, runner/src/compare/)
// flags when it is replayed over the newest runs of the history at build time.
import { hostClassOf, type Unit } from '@runtime-bench/schemas';
import type {
  GateChangePoint,
  GateCoverage,
  GateReport,
  GateRow,
  GateVerdict,
} from '@runtime-bench/runner/compare';
import { decideVersionChanges, GATE_DEFAULTS, VERSION_CHANGE_DEFAULTS } from '@runtime-bench/runner/compare';
import type { LoadedRun } from './load.ts';
import { slugify } from './slug.ts';

/**
 * The gate, seen from the site: given the history it may look at, returns a function that
 * reports on one run of it. runner/src/compare's createGateReplay(history).report fits.
 */
export type Gate = (history: readonly LoadedRun[]) => (current: LoadedRun) => GateReport;

export interface RegressionFinding {
  hostClassId: string;
  runId: string;
  startedAt: string;
  benchmark: string;
  target: string;
  criName: string;
  ociName: string;
  versions: string;
  /** the row's own components (its CRI and OCI runtime), whose version changes it shows */
  components: string[];
  kind: GateRow['kind'];
  /** metric name, or "error rate" / "status" */
  what: string;
  unit: Unit | null;
  verdict: GateVerdict;
  change: number | null;
  changeLower: number | null;
  changeUpper: number | null;
  adjustedP: number | null;
  baselineFirst: string | null;
  baselineLast: string | null;
  changePoint: GateChangePoint | null;
  notes: string[];
}

/**
 * A metric of a version change declared and measured side by side in one night (the previous
 * version beside the new one), as `check` decides it (runner/src/compare/version-change.ts): apart
 * from the gate's across-night findings, because it answers another question (did this version
 * change it?) with another test.
 */
export interface VersionChangeFinding {
  hostClassId: string;
  runId: string;
  startedAt: string;
  /** "runc 1.1.14 → 1.2.0" */
  label: string;
  before: string;
  after: string;
  /** the night of the pair this run is, of at most `looks`, and the runs pooled */
  look: number;
  looks: number;
  runIds: string[];
  metric: string;
  verdict: 'regression' | 'improvement' | 'unclear' | 'same';
  change: number;
  lower: number;
  upper: number;
  confidence: number;
  threshold: number;
  design: string;
}

export interface RegressionReport {
  findings: RegressionFinding[];
  /** every metric of the declared version changes of the checked runs but those read "same", newest first */
  versionChanges: VersionChangeFinding[];
  checkedRuns: number;
  /** the gate's coverage of every checked run, added up (reasons summed across runs) */
  coverage: GateCoverage;
}

/** How many of the newest runs per host class the page replays the gate on. */
export const REGRESSION_WINDOW = 30;
/**
 * Older runs handed to the gate as history before those: enough for its baseline window (10 runs
 * by default) and for telling new regressions from ongoing ones, without replaying a history of
 * ten thousand runs on every build.
 */
export const REGRESSION_HISTORY = 20;

const FLAGGED = new Set<GateVerdict>(['regression', 'ongoing regression', 'improvement']);

/**
 * Replays the gate on the newest REGRESSION_WINDOW runs of every host class and lists what it
 * flagged (regressions, ongoing regressions, improvements), newest first, with how many rows it
 * could check, so that no finding reads as "nothing regressed". `loaded` is sorted by start time.
 */
export function regressionReport(loaded: readonly LoadedRun[], gate: Gate): RegressionReport {
  const byHost = new Map<string, LoadedRun[]>();
  for (const l of loaded) {
    const id = slugify(hostClassOf(l.run.host));
    const list = byHost.get(id) ?? [];
    list.push(l);
    byHost.set(id, list);
  }
  const findings: RegressionFinding[] = [];
  const versionChanges: VersionChangeFinding[] = [];
  let checkedRuns = 0;
  const coverage = { rows: 0, checked: 0 };
  const notChecked = new Map<string, number>();
  for (const [hostClassId, runs] of byHost) {
    const history = runs.slice(-(REGRESSION_WINDOW + REGRESSION_HISTORY));
    const report = gate(history);
    for (const entry of runs.slice(-REGRESSION_WINDOW)) {
      checkedRuns++;
      versionChanges.push(...versionChangeFindings(hostClassId, entry, history));
      const targets = new Map(entry.run.targets.map((t) => [t.id, t]));
      const result = report(entry);
      coverage.rows += result.coverage.rows;
      coverage.checked += result.coverage.checked;
      for (const n of result.coverage.notChecked)
        notChecked.set(n.reason, (notChecked.get(n.reason) ?? 0) + n.rows);
      for (const row of result.rows) {
        if (!FLAGGED.has(row.verdict)) continue;
        const t = targets.get(row.target);
        findings.push({
          hostClassId,
          runId: entry.run.runId,
          startedAt: entry.run.startedAt,
          benchmark: row.benchmark,
          target: row.target,
          criName: t?.cri.name ?? '',
          ociName: t?.oci.name ?? '',
          versions: t ? `${t.cri.name} ${t.cri.version} · ${t.oci.name} ${t.oci.version}` : row.target,
          components: t ? [t.cri.name, t.oci.name] : [],
          kind: row.kind,
          what: row.kind === 'metric' ? row.metric : row.kind === 'error-rate' ? 'error rate' : 'status',
          unit: row.kind === 'metric' ? row.unit : null,
          verdict: row.verdict,
          change: row.kind === 'metric' ? row.change : null,
          changeLower: row.kind === 'metric' ? row.changeLower : null,
          changeUpper: row.kind === 'metric' ? row.changeUpper : null,
          adjustedP: row.adjustedP,
          baselineFirst: row.baselineRuns[0] ?? null,
          baselineLast: row.baselineRuns.at(-1) ?? null,
          changePoint: row.kind === 'metric' ? row.changePoint : null,
          notes: row.notes,
        });
      }
    }
  }
  findings.sort(
    (a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || a.target.localeCompare(b.target),
  );
  versionChanges.sort(
    (a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || a.metric.localeCompare(b.metric),
  );
  return {
    findings,
    versionChanges,
    checkedRuns,
    coverage: {
      ...coverage,
      notChecked: [...notChecked]
        .map(([reason, rows]) => ({ reason, rows }))
        .sort((a, b) => b.rows - a.rows || a.reason.localeCompare(b.reason)),
    },
  };
}

/** The declared version changes of one run, decided as `check` decides them with its defaults. */
function versionChangeFindings(
  hostClassId: string,
  entry: LoadedRun,
  history: readonly LoadedRun[],
): VersionChangeFinding[] {
  const earlier = history.filter((h) => h.run.startedAt < entry.run.startedAt);
  const reports = decideVersionChanges(entry, earlier, {
    ...VERSION_CHANGE_DEFAULTS,
    threshold: GATE_DEFAULTS.threshold,
    thresholds: {},
  });
  return reports
    .filter((r) => r.declared && r.decision !== null)
    .flatMap((r) =>
      r
        .decision!.metrics.filter((m) => m.verdict !== 'same')
        .map((m) => ({
          hostClassId,
          runId: entry.run.runId,
          startedAt: entry.run.startedAt,
          label: r.label,
          before: r.before,
          after: r.after,
          look: r.decision!.look,
          looks: r.decision!.looks,
          runIds: r.runIds,
          metric: m.metric,
          verdict: m.verdict,
          change: m.change,
          lower: m.lower,
          upper: m.upper,
          confidence: m.confidence,
          threshold: m.threshold,
          design: m.design,
        })),
    );
}
