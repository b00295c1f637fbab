import type { Direction } from '@runtime-bench/schemas';
import type { MetricInfo, Observation, SiteIndex } from './aggregate.ts';

/** What a regression gate says about one candidate run against its baseline. */
export interface GateVerdict {
  verdict: 'regression' | 'improvement' | 'no-change' | 'inconclusive';
  /** median(candidate) / median(baseline) */
  ratio: number;
  lower: number | null;
  upper: number | null;
}

/**
 * The pure comparison of `runtime-bench check` (runner/src/compare/), seen from the site: the
 * site calls it over the history at build time. Kept as a parameter so that the page is honest
 * ("no gate results yet") until that module exists, and switches over by passing it in.
 */
export type Gate = (
  baseline: readonly number[],
  candidate: readonly number[],
  direction: Direction,
) => GateVerdict;

export interface RegressionFinding extends GateVerdict {
  hostClassId: string;
  combo: string;
  criName: string;
  ociName: string;
  versions: string;
  metric: MetricInfo;
  runId: string;
  startedAt: string;
  baselineRunId: string;
}

export type RegressionReport =
  { state: 'no-gate'; findings: [] } | { state: 'gate'; findings: RegressionFinding[]; compared: number };

/** How many of the newest nights per series the page re-checks. */
export const REGRESSION_WINDOW = 30;

/**
 * Runs the gate over consecutive "ok" runs of every host class × combination × metric (each run
 * against the one before it, as the nightly job does) for the newest REGRESSION_WINDOW runs, and
 * returns what it flagged, newest first. Without a gate the report says so instead of claiming
 * that nothing regressed.
 */
export function regressionReport(index: SiteIndex, gate: Gate | undefined): RegressionReport {
  if (!gate) return { state: 'no-gate', findings: [] };
  const metrics = new Map(index.metrics.map((m) => [m.key, m]));
  const series = new Map<string, Observation[]>();
  for (const o of index.observations) {
    if (o.status !== 'ok' || o.samples.length === 0) continue;
    const key = `${o.hostClassId}\u0000${o.combo}\u0000${o.metricKey}`;
    const list = series.get(key) ?? [];
    list.push(o);
    series.set(key, list);
  }
  const findings: RegressionFinding[] = [];
  let compared = 0;
  for (const list of series.values()) {
    const start = Math.max(1, list.length - REGRESSION_WINDOW);
    for (let i = start; i < list.length; i++) {
      const base = list[i - 1]!;
      const cand = list[i]!;
      const metric = metrics.get(cand.metricKey)!;
      const v = gate(base.samples, cand.samples, metric.direction);
      compared++;
      if (v.verdict !== 'regression' && v.verdict !== 'improvement') continue;
      findings.push({
        ...v,
        hostClassId: cand.hostClassId,
        combo: cand.combo,
        criName: cand.criName,
        ociName: cand.ociName,
        versions: `${cand.criName} ${cand.criVersion} · ${cand.ociName} ${cand.ociVersion}`,
        metric,
        runId: index.runs[cand.run]!.runId,
        startedAt: index.runs[cand.run]!.startedAt,
        baselineRunId: index.runs[base.run]!.runId,
      });
    }
  }
  findings.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.combo.localeCompare(b.combo));
  return { state: 'gate', findings, compared };
}
