// The side-by-side version-change verdicts of `check`: for each pair of targets of the current run
// that measured two versions of one component (a declared version change, else the pairs found by
// version-pairs.ts, as in a sweep), the change of every metric with its interval and the verdict
// read off it (stats/change-decision.ts). A pair still unclear is measured again on the following
// nights; their rounds are pooled with tonight's and the error rate is spent over the looks. Pure.
import type { BenchmarkResult, RunResult, Target } from '@runtime-bench/schemas';
import {
  decideLook,
  type LookDecision,
  type MetricPair,
  type SpendingRule,
} from '../stats/change-decision.ts';
import type { HistoryEntry } from './gate/types.ts';
import { canonicalJson, thresholdFor } from './keys.ts';
import { pairLabel, versionPairs, type VersionPair } from './version-pairs.ts';
import { hostClassOf } from '@runtime-bench/schemas';

export interface VersionChangeOptions {
  /** Error rate of one pair's decision over all its metrics and looks. */
  alpha: number;
  /** The most nights a pair is measured on before an unclear metric stays unclear. */
  looks: number;
  spending: SpendingRule;
  /** Default threshold (fraction) and per-metric ones, as the gate reads them (keys.ts thresholdFor). */
  threshold: number;
  thresholds: Readonly<Record<string, number>>;
}

export const VERSION_CHANGE_DEFAULTS = { alpha: 0.02, looks: 3, spending: 'pocock' } as const;

export interface VersionChangeReport {
  /** "runc 1.4.3 → 1.4.4". */
  label: string;
  /** Declared in the run's config (config.versionChanges): its regressions are the night's. */
  declared: boolean;
  component: VersionPair['component'];
  name: string;
  from: string;
  to: string;
  before: string;
  after: string;
  orderedBy: VersionPair['orderedBy'];
  /** The runs whose rounds were pooled, oldest first; the current run last. */
  runIds: string[];
  /** Null when the pair has no metric both targets measured with positive samples. */
  decision: LookDecision | null;
  /** Why there is no decision, or what was left out. */
  notes: string[];
}

/** A metric of one target's results that can enter the decision: positive, finite samples. */
interface Measured {
  key: string;
  benchmark: string;
  metric: string;
  direction: 'lower' | 'higher';
  samples: number[];
  /** The samples are one per round: every attempt measured, none failed. */
  complete: boolean;
  parameters: string;
}

/** A decision's metric key, `benchmark:metric` (benchmark names hold no ":"). */
export const metricKey = (benchmark: string, metric: string): string => `${benchmark}:${metric}`;

/** The two parts of a decision's metric key; a key without its benchmark has benchmark ''. */
export function splitMetricKey(key: string): { benchmark: string; metric: string } {
  const at = key.indexOf(':');
  return at > 0 ? { benchmark: key.slice(0, at), metric: key.slice(at + 1) } : { benchmark: '', metric: key };
}

function measured(run: RunResult, target: string): Map<string, Measured> {
  const out = new Map<string, Measured>();
  for (const r of run.results as BenchmarkResult[]) {
    if (r.target !== target || r.status !== 'ok') continue;
    for (const m of r.metrics) {
      if (m.samples.length === 0 || !m.samples.every((v) => Number.isFinite(v) && v > 0)) continue;
      out.set(metricKey(r.benchmark, m.name), {
        key: metricKey(r.benchmark, m.name),
        benchmark: r.benchmark,
        metric: m.name,
        direction: m.direction === 'higher' ? 'higher' : 'lower',
        samples: m.samples,
        complete: r.failedAttempts === 0 && m.samples.length === r.attempts,
        parameters: canonicalJson(r.parameters),
      });
    }
  }
  return out;
}

/** The pairs `check` decides: the run's declared version changes, else every pair it measured. */
export function pairsToDecide(run: RunResult): { pair: VersionPair; declared: boolean }[] {
  const all = versionPairs(run);
  const declared = run.config.versionChanges ?? [];
  if (declared.length === 0) return all.map((pair) => ({ pair, declared: false }));
  const byId = new Map(run.targets.map((t) => [t.id, t]));
  return declared.flatMap(({ before, after }) => {
    const a = byId.get(before);
    const b = byId.get(after);
    if (!a || !b) return [];
    const found = all.find((p) => p.a === a && p.b === b) ?? declaredPair(a, b);
    return [{ pair: found, declared: true }];
  });
}

/** A declared pair the version rule did not find (e.g. two commits): the versions as the targets say. */
function declaredPair(a: Target, b: Target): VersionPair {
  const component =
    a.oci.version !== b.oci.version ? 'oci' : a.cri.version !== b.cri.version ? 'cri' : 'none';
  const version = (t: Target) => (component === 'cri' ? t.cri.version : t.oci.version);
  return {
    a,
    b,
    component,
    name: component === 'cri' ? a.cri.name : a.oci.name,
    from: version(a),
    to: version(b),
    orderedBy: 'run order',
  };
}

/**
 * The same pair declared by an earlier night: same host class, a declared version change whose
 * targets are of the same kind and versions. Only declared pairs have looks: a night repeats a
 * pair because it was unclear (side-by-side-plan.ts); a sweep that happened to measure the same
 * two versions is another experiment (fixed order, other nights' load), not an earlier look.
 */
function samePairIn(earlier: RunResult, current: RunResult, pair: VersionPair): VersionPair | undefined {
  if (hostClassOf(earlier.host) !== hostClassOf(current.host)) return undefined;
  const declared = (earlier.config.versionChanges ?? []).map((d) => [
    earlier.targets.find((t) => t.id === d.before),
    earlier.targets.find((t) => t.id === d.after),
  ]);
  const same = (x: Target, y: Target) =>
    x.cri.name === y.cri.name &&
    x.cri.version === y.cri.version &&
    x.oci.name === y.oci.name &&
    x.oci.version === y.oci.version &&
    x.transport === y.transport &&
    (x.engine?.version ?? '') === (y.engine?.version ?? '');
  const found = declared.find(([a, b]) => a && b && same(a, pair.a) && same(b, pair.b));
  return found ? { ...pair, a: found[0]!, b: found[1]! } : undefined;
}

/**
 * The verdicts of the current run's pairs. `history` gives the earlier nights: for a declared
 * pair, a night that declared the same pair (same versions, host class) within the last
 * `looks − 1` such nights before this one is an earlier look, and its rounds are pooled with
 * tonight's. A pair only found (a sweep's) is decided on its own run.
 */
export function decideVersionChanges(
  current: HistoryEntry,
  history: readonly HistoryEntry[],
  options: VersionChangeOptions,
): VersionChangeReport[] {
  const earlierRuns = history
    .map((h) => h.run)
    .filter((r) => r.runId !== current.run.runId && r.startedAt < current.run.startedAt)
    .sort((x, y) => (x.startedAt < y.startedAt ? -1 : x.startedAt > y.startedAt ? 1 : 0));
  return pairsToDecide(current.run).map(({ pair, declared }) => {
    const looksOf: { run: RunResult; pair: VersionPair }[] = [];
    if (declared)
      for (const run of earlierRuns) {
        const found = samePairIn(run, current.run, pair);
        if (found) looksOf.push({ run, pair: found });
      }
    const nights = [...looksOf.slice(-(options.looks - 1)), { run: current.run, pair }];
    return decidePair(pair, declared, nights, options);
  });
}

function decidePair(
  pair: VersionPair,
  declared: boolean,
  nights: readonly { run: RunResult; pair: VersionPair }[],
  options: VersionChangeOptions,
): VersionChangeReport {
  const notes: string[] = [];
  const tonight = nights[nights.length - 1]!;
  const a0 = measured(tonight.run, pair.a.id);
  const b0 = measured(tonight.run, pair.b.id);
  const metrics: MetricPair[] = [];
  for (const [key, a] of a0) {
    const b = b0.get(key);
    if (!b) continue;
    if (a.parameters !== b.parameters) {
      notes.push(`${key}: the two targets ran with different parameters; left out`);
      continue;
    }
    const pooledA: number[] = [];
    const pooledB: number[] = [];
    let matched = true;
    for (const night of nights) {
      const x = measured(night.run, night.pair.a.id).get(key);
      const y = measured(night.run, night.pair.b.id).get(key);
      if (!x || !y || x.parameters !== a.parameters || y.parameters !== b.parameters) continue;
      pooledA.push(...x.samples);
      pooledB.push(...y.samples);
      matched &&= x.complete && y.complete && x.samples.length === y.samples.length;
    }
    metrics.push({
      metric: key,
      direction: a.direction,
      threshold: thresholdFor(a.benchmark, a.metric, options.thresholds, options.threshold),
      a: pooledA,
      b: pooledB,
      roundsMatched: matched,
    });
  }
  const base = {
    // Two builds that report one version but were declared a change are two commits (a
    // bisection's confirmation): their handlers name the builds ("runc-1.1.14-g614ce12f0e97").
    label:
      declared && pair.component === 'none' && pair.a.handler !== pair.b.handler
        ? `${pair.name} ${pair.from}: ${pair.a.handler} → ${pair.b.handler}`
        : pairLabel(pair),
    declared,
    component: pair.component,
    name: pair.name,
    from: pair.from,
    to: pair.to,
    before: pair.a.id,
    after: pair.b.id,
    orderedBy: pair.orderedBy,
    runIds: nights.map((n) => n.run.runId),
  };
  if (metrics.length === 0)
    return {
      ...base,
      decision: null,
      notes: [...notes, 'no metric measured by both targets with positive samples'],
    };
  const look = Math.min(nights.length, options.looks);
  if (tonight.run.config.roundOrder !== 'shuffled')
    notes.push(
      'the rounds kept a fixed order (roundOrder fixed): the paired test assumes a random order within a round',
    );
  const decision = decideLook(metrics, {
    alpha: options.alpha,
    look,
    looks: options.looks,
    spending: options.spending,
  });
  return { ...base, decision, notes };
}
