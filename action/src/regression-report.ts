// What the job summary and the alert issues say about each regression of `check`'s report: the
// version change it arrived with ("runc 1.4.3 → 1.4.4"), the change and its interval with the
// basis they were measured on, and the site page of its benchmark. A version change measured side
// by side in the run (the report's `versionChanges`: both versions in one run, the pair declared)
// is preferred to the gate's comparison across nights; a regression it finds that the gate did not
// is one of the night as well, as `check --fail-on-regression` counts it. Only the numbers
// `runtime-bench check --json` gives; the site's page paths from the runner's site-path module
// (the one the site names its pages with). Pure.
import {
  formatChangePoint,
  formatInterval,
  splitMetricKey,
  type CheckReport,
  type GateRow,
  type VersionChangeReport,
} from '@runtime-bench/runner/compare';
import { formatChange } from '@runtime-bench/runner/format';
import { metricPagePath, sitePageUrl } from '@runtime-bench/runner/site-paths';
import type { BisectRequest } from '@runtime-bench/runner';

/**
 * How a change was measured: both versions in the same run ("side by side", check's version-change
 * decision), or tonight against the window of earlier nights ("across nights", the gate).
 */
export type ChangeBasis = 'side by side' | 'across nights';

/** One regressed row of a gate report, as the summary and the alert issue tell it. */
export interface RegressionEntry {
  /** What one alert issue is about: host class, target lineage, benchmark and metric (or row kind). */
  key: string;
  verdict: 'regression' | 'ongoing regression';
  hostClass: string;
  target: string;
  /** id · cri · oci: the target as the gate follows it across nights (its lineage). */
  targetIdentity: string;
  benchmark: string;
  /** The metric, or "status" / "error-rate" for those rows. */
  metric: string;
  /** The component versions the regression arrived with, e.g. ["runc 1.4.3 → 1.4.4"]; [] when none changed. */
  versionChanges: string[];
  /**
   * Where `versionChanges` was read: the pair measured side by side, the step's night (change
   * point), or tonight against the window.
   */
  versionSource: 'side by side' | 'change point' | 'window' | 'none';
  /** The change and its interval (metric rows), with what they were measured on. */
  change: {
    basis: ChangeBasis;
    change: number;
    lower: number | null;
    upper: number | null;
    /** The interval's confidence and the verdict read off it (side by side only). */
    confidence?: number;
    verdict?: string;
  } | null;
  /** "+12 % [+8.1 %, +16 %] at <run id> (runc 1.1.5 → 1.3.6)", or "" without a change point. */
  step: string;
  runId: string;
  /** The benchmark's metric page on the site, or null without a site address. */
  siteUrl: string | null;
}

/** "containerd 2.1.4, runc 1.4.4" (gate/series.ts versionsOf) as component → version. */
function parseVersions(versions: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of versions.split(', ')) {
    const at = part.lastIndexOf(' ');
    if (at > 0) out.set(part.slice(0, at), part.slice(at + 1));
  }
  return out;
}

/**
 * The target's CRI and OCI runtime versions tonight against those of its baseline window: one
 * "name from → to" per component whose version tonight no night of the window had (several
 * earlier versions joined by " / "). [] when tonight's versions are the window's.
 */
export function changesAgainstWindow(tonight: string, window: readonly string[]): string[] {
  const now = parseVersions(tonight);
  const before = window.map(parseVersions);
  const changes: string[] = [];
  for (const [name, version] of now) {
    const earlier = [...new Set(before.map((b) => b.get(name) ?? '(none)'))].sort();
    if (earlier.length > 0 && !earlier.includes(version))
      changes.push(`${name} ${earlier.join(' / ')} → ${version}`);
  }
  return changes;
}

/** The versions a row's regression arrived with: those at its change point, else tonight's against the window. */
function versionChangesOf(
  row: GateRow,
  report: CheckReport,
): Pick<RegressionEntry, 'versionChanges' | 'versionSource'> {
  if (row.kind === 'metric' && row.changePoint && row.changePoint.versionChanges.length > 0)
    return { versionChanges: row.changePoint.versionChanges, versionSource: 'change point' };
  const target = report.targets.find((t) => t.id === row.target);
  const changes = target ? changesAgainstWindow(target.versions, target.baselineVersions) : [];
  return changes.length > 0
    ? { versionChanges: changes, versionSource: 'window' }
    : { versionChanges: [], versionSource: 'none' };
}

/** A metric of a declared pair measured side by side, with the pair. */
interface SideBySideMetric {
  pair: VersionChangeReport;
  metric: NonNullable<VersionChangeReport['decision']>['metrics'][number];
  benchmark: string;
  name: string;
}

/** Every metric decision of the report's declared pairs (the night's version changes). */
function sideBySideMetrics(report: CheckReport): SideBySideMetric[] {
  return (report.versionChanges ?? [])
    .filter((pair) => pair.declared && pair.decision !== null)
    .flatMap((pair) =>
      pair.decision!.metrics.map((metric) => {
        const { benchmark, metric: name } = splitMetricKey(metric.metric);
        return { pair, metric, benchmark, name };
      }),
    );
}

/** The side-by-side numbers of a metric as an entry's change, version change and its source. */
function sideBySide(
  s: SideBySideMetric,
): Pick<RegressionEntry, 'change' | 'versionChanges' | 'versionSource'> {
  const m = s.metric;
  return {
    versionChanges: [s.pair.label],
    versionSource: 'side by side',
    change: {
      basis: 'side by side',
      change: m.change,
      lower: m.lower,
      upper: m.upper,
      confidence: m.confidence,
      verdict: m.verdict,
    },
  };
}

/** The regressions (new and ongoing) of a check report; `siteUrl` '' links no page. */
export function regressionEntries(report: CheckReport, siteUrl: string): RegressionEntry[] {
  const out: RegressionEntry[] = [];
  const hostClass = report.current.hostClass;
  const pageOf = (benchmark: string, metric: string, unit: string): string | null =>
    siteUrl ? sitePageUrl(siteUrl, metricPagePath(benchmark, metric, unit)) : null;
  const pairs = sideBySideMetrics(report);
  const pairOf = (target: string, benchmark: string, metric: string) =>
    pairs.find((s) => s.pair.after === target && s.benchmark === benchmark && s.name === metric);
  for (const row of report.rows) {
    if (row.verdict !== 'regression' && row.verdict !== 'ongoing regression') continue;
    const metric = row.kind === 'metric' ? row.metric : row.kind;
    const measured = row.kind === 'metric' ? pairOf(row.target, row.benchmark, row.metric) : undefined;
    out.push({
      key: [hostClass, row.targetIdentity, row.benchmark, metric].join(' · '),
      verdict: row.verdict,
      hostClass,
      target: row.target,
      targetIdentity: row.targetIdentity,
      benchmark: row.benchmark,
      metric,
      ...(measured
        ? sideBySide(measured)
        : {
            ...versionChangesOf(row, report),
            change:
              row.kind === 'metric' && row.change !== null
                ? {
                    basis: 'across nights' as const,
                    change: row.change,
                    lower: row.changeLower,
                    upper: row.changeUpper,
                  }
                : null,
          }),
      step: row.kind === 'metric' ? formatChangePoint(row.changePoint) : '',
      runId: report.current.runId,
      // A status or error-rate row is about the benchmark: its page is that of a metric it
      // measures, and it has none of its own; the metric rows link theirs.
      siteUrl: row.kind === 'metric' ? pageOf(row.benchmark, row.metric, row.unit) : null,
    });
  }
  // A declared pair's regression the gate did not flag across nights: a regression of the night.
  for (const s of pairs) {
    if (s.metric.verdict !== 'regression') continue;
    if (out.some((e) => e.target === s.pair.after && e.benchmark === s.benchmark && e.metric === s.name))
      continue;
    const target = report.targets.find((t) => t.id === s.pair.after);
    const targetIdentity = target?.identity ?? s.pair.after;
    const unit = report.rows.find(
      (r) =>
        r.kind === 'metric' &&
        r.target === s.pair.after &&
        r.benchmark === s.benchmark &&
        r.metric === s.name,
    );
    out.push({
      key: [hostClass, targetIdentity, s.benchmark, s.name].join(' · '),
      verdict: 'regression',
      hostClass,
      target: s.pair.after,
      targetIdentity,
      benchmark: s.benchmark,
      metric: s.name,
      ...sideBySide(s),
      step: '',
      runId: report.current.runId,
      siteUrl: pageOf(s.benchmark, s.name, unit?.kind === 'metric' ? unit.unit : ''),
    });
  }
  return out;
}

/** "runc 1.4.3 → 1.4.4", several joined, or what to say when no version changed. */
export function versionChangeText(entry: Pick<RegressionEntry, 'versionChanges'>): string {
  return entry.versionChanges.length > 0
    ? entry.versionChanges.join(', ')
    : 'no component version changed (the host, the night or drift)';
}

/**
 * "+12.0 % [+8.1 %, +16 %] across nights", "+7.1 % [+2.6 %, +11.7 %] at 99.9 % side by side
 * (regression)", or "" for a row without a change (status, error rate).
 */
export function changeText(entry: Pick<RegressionEntry, 'change'>): string {
  if (entry.change === null) return '';
  const c = entry.change;
  const confidence =
    c.confidence === undefined ? '' : ` at ${(c.confidence * 100).toFixed(c.confidence > 0.999 ? 2 : 1)} %`;
  const verdict = c.verdict === undefined ? '' : ` (${c.verdict})`;
  return `${formatChange(c.change)}${formatInterval(c.lower, c.upper)}${confidence} ${c.basis}${verdict}`;
}

/** "operations.container.lifecycle StartContainer on containerd/runc" */
export function whatRegressed(entry: Pick<RegressionEntry, 'benchmark' | 'metric' | 'target'>): string {
  return `${entry.benchmark} ${entry.metric} on ${entry.target}`;
}

/** The bisection `check` offered for an entry (component, versions, benchmark and metric agree), or null. */
export function bisectionFor<R extends BisectRequest>(
  entry: Pick<RegressionEntry, 'benchmark' | 'metric' | 'versionChanges'>,
  requests: readonly R[],
): R | null {
  return (
    requests.find(
      (r) =>
        r.benchmark === entry.benchmark &&
        r.metric === entry.metric &&
        entry.versionChanges.includes(`${r.component} ${r.good} → ${r.bad}`),
    ) ?? null
  );
}

/** A line of the summary's "where the regressions came from": its text and its links. */
export interface OriginLine {
  text: string;
  links: { label: string; url: string }[];
}

/**
 * "runc 1.4.3 → 1.4.4: operations.container.lifecycle StartContainer on containerd/runc +12.0 %
 * [+8.1 %, +16 %] across nights; step … at …; bisection runc 1.4.3 → 1.4.4: its report follows
 * (bisect step)", and the site page's link.
 */
export function originLine(entry: RegressionEntry, bisection: BisectRequest | null): OriginLine {
  const change = changeText(entry);
  const parts = [
    `${versionChangeText(entry)}: ${whatRegressed(entry)}${change ? ` ${change}` : ''}${
      entry.verdict === 'ongoing regression' ? ' (ongoing: flagged on an earlier night)' : ''
    }`,
  ];
  if (entry.step) parts.push(`step ${entry.step}`);
  if (bisection)
    parts.push(
      `bisection ${bisection.component} ${bisection.good} → ${bisection.bad}: its report follows (bisect step)`,
    );
  return {
    text: parts.join('; '),
    links: entry.siteUrl ? [{ label: 'site page', url: entry.siteUrl }] : [],
  };
}
