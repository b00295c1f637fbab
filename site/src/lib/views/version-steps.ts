// The version steps of a runtime page: how a metric changed from one version of the runtime to
// another, read only where one run measured both versions side by side (a sweep, a night with a
// declared version change: the pairs `check` decides, SiteIndex.sideBySide). Two versions measured
// only in separate runs get no change at all: a run's own level (the host's state that night, the
// order of its targets) moves the medians of separate runs by more than a version step, and the
// samples of one run cannot say by how much (docs/site.md, "Version steps"). Pure.
import { bootstrapRatioOfMediansCI } from '@runtime-bench/runner/stats';
import { median } from '@runtime-bench/runner/stats';
import { STATUS_OK, type MetricInfo, type SideBySideRef, type SiteIndex } from '../site-index.ts';
import { parametersLabel } from '../parameters.ts';
import type { VersionPoint } from './benchmark.ts';
import type { RuntimeView } from './runtime.ts';

/** Bootstrap of a side-by-side step: seeded, so a page shows the same interval on every build. */
const BOOTSTRAP = { confidence: 0.95, resamples: 2000, seed: 1 } as const;

/** A metric's change between two versions measured in one run. */
export interface SideBySideStep {
  basis: 'side by side';
  hostClassId: string;
  metric: MetricInfo;
  /** the other runtime and its version (and the parameters, where the metric has several sets) */
  partner: string;
  from: string;
  to: string;
  /** the two targets' medians in that run */
  fromMedian: number;
  toMedian: number;
  /** median(to) / median(from) − 1, both from the one run */
  change: number;
  /** 95 % percentile-bootstrap interval of the change (each side's samples resampled) */
  lower: number;
  upper: number;
  /** the interval excludes no change */
  significant: boolean;
  /** the change goes the metric's better way */
  better: boolean;
  /** the run both versions were measured in (the newest such run) and its two targets */
  run: { runId: string; startedAt: string };
  before: string;
  after: string;
  /** the pair was declared as the night's version change (config.versionChanges) */
  declared: boolean;
  /** older runs that measured the same pair side by side too (not shown) */
  earlierRuns: number;
}

/** Two adjacent measured versions that no run measured side by side: no change is given. */
export interface SeparateStep {
  basis: 'separate runs';
  hostClassId: string;
  metric: MetricInfo;
  partner: string;
  from: VersionPoint;
  to: VersionPoint;
}

/** What identifies a step: host class, metric, runtime, partner runtime and version, parameters, versions. */
function stepKey(parts: (string | number)[]): string {
  return parts.join('\u0000');
}

interface Found {
  kind: 'cri' | 'oci';
  runtime: string;
  key: string;
  step: Omit<SideBySideStep, 'change' | 'lower' | 'upper' | 'significant' | 'better' | 'earlierRuns'>;
  a: readonly number[];
  b: readonly number[];
  earlierRuns: number;
}

/** A shown step and its stepKey. */
interface Keyed {
  key: string;
  step: SideBySideStep;
}

const cache = new WeakMap<SiteIndex, Map<string, Keyed[]>>();

/** One run's version pairs joined end to end: a sweep of n versions is one chain of n targets. */
interface Chain {
  run: number;
  component: SideBySideRef['component'];
  /** run targets, older version first */
  targets: number[];
  /** per link targets[i] → targets[i + 1]: declared as the night's version change */
  declared: boolean[];
}

function chainsOf(pairs: readonly SideBySideRef[]): Chain[] {
  const key = (run: number, t: number) => `${run}\u0000${t}`;
  const next = new Map<string, SideBySideRef>();
  const later = new Set<string>();
  for (const p of pairs) {
    if (p.component === 'none') continue;
    next.set(key(p.run, p.a), p);
    later.add(key(p.run, p.b));
  }
  const chains: Chain[] = [];
  for (const p of next.values()) {
    if (later.has(key(p.run, p.a))) continue;
    const chain: Chain = { run: p.run, component: p.component, targets: [p.a], declared: [] };
    for (let link: SideBySideRef | undefined = p; link; link = next.get(key(p.run, link.b))) {
      chain.targets.push(link.b);
      chain.declared.push(link.declared);
    }
    chains.push(chain);
  }
  return chains;
}

/**
 * Every side-by-side step of the index, by runtime (`${kind}\0${name}`): per chain of a run's
 * version pairs and per metric, each two adjacent versions that measured it with status "ok" and
 * the same parameters give the change of the median; of the runs that measured the same step, the
 * newest is shown. Computed once per index (the bootstrap only for the shown ones).
 */
function allSideBySide(index: SiteIndex): Map<string, Keyed[]> {
  const cached = cache.get(index);
  if (cached) return cached;
  const chains = chainsOf(index.sideBySide);
  const wanted = new Set(chains.flatMap((c) => c.targets));
  const found = new Map<string, Found>();
  for (const metric of index.metrics) {
    const rows = index.rowsOf(metric.key);
    if (!rows || wanted.size === 0) continue;
    const rowOf = new Map<number, number>();
    const sets = new Set<number>();
    for (let i = 0; i < rows.runTarget.length; i++) {
      if (rows.status[i] !== STATUS_OK || rows.n[i] === 0) continue;
      sets.add(rows.parameters[i]!);
      if (wanted.has(rows.runTarget[i]!)) rowOf.set(rows.runTarget[i]!, i);
    }
    const samplesOf = (i: number) => rows.samples.slice(rows.start[i]!, rows.start[i]! + rows.n[i]!);
    for (const chain of chains) {
      // adjacent versions of the chain that both measured the metric: a version without it (failed,
      // not run) is stepped over, as the run still measured the two on either side together
      const measured = chain.targets.map((t, i) => ({ t, i })).filter(({ t }) => rowOf.has(t));
      for (let k = 1; k < measured.length; k++) {
        const [x, y] = [measured[k - 1]!, measured[k]!];
        const ia = rowOf.get(x.t)!;
        const ib = rowOf.get(y.t)!;
        if (rows.parameters[ia] !== rows.parameters[ib]) continue;
        const p = {
          run: chain.run,
          a: x.t,
          b: y.t,
          component: chain.component,
          declared: y.i === x.i + 1 && chain.declared[x.i]!,
        };
        const a = index.runTargets[p.a]!;
        const b = index.runTargets[p.b]!;
        // the component that differs: the CRI runtime's (or the engine's, in its place) or the OCI runtime's
        const kind = p.component === 'oci' ? 'oci' : 'cri';
        const [runtime, from, to, partner, partnerVersion] =
          kind === 'oci'
            ? [a.ociName, a.ociVersion, b.ociVersion, a.criName, a.criVersion]
            : [a.criName, a.criVersion, b.criVersion, a.ociName, a.ociVersion];
        if (from === to) continue;
        const parameters = rows.parameters[ia]!;
        const key = stepKey([
          a.hostClassId,
          metric.key,
          kind,
          runtime,
          partner,
          partnerVersion,
          parameters,
          from,
          to,
        ]);
        const run = index.runs[p.run]!;
        const earlier = found.get(key);
        found.set(key, {
          kind,
          runtime,
          key,
          a: samplesOf(ia),
          b: samplesOf(ib),
          earlierRuns: earlier ? earlier.earlierRuns + 1 : 0,
          step: {
            basis: 'side by side',
            hostClassId: a.hostClassId,
            metric,
            partner: `${partner} ${partnerVersion}${sets.size > 1 ? ` · ${parametersLabel(index.parameterSets[parameters]!)}` : ''}`,
            from,
            to,
            fromMedian: median(samplesOf(ia)),
            toMedian: median(samplesOf(ib)),
            run: { runId: run.runId, startedAt: run.startedAt },
            before: a.targetId,
            after: b.targetId,
            declared: p.declared,
          },
        });
      }
    }
  }
  const byRuntime = new Map<string, Keyed[]>();
  for (const f of found.values()) {
    if (!f.a.every((v) => v > 0) || !f.b.every((v) => v >= 0)) continue;
    const ci = bootstrapRatioOfMediansCI(f.a, f.b, BOOTSTRAP);
    const change = ci.estimate - 1;
    const lower = ci.lower - 1;
    const upper = ci.upper - 1;
    const step: SideBySideStep = {
      ...f.step,
      change,
      lower,
      upper,
      significant: lower > 0 || upper < 0,
      better: f.step.metric.direction === 'lower' ? change < 0 : change > 0,
      earlierRuns: f.earlierRuns,
    };
    const id = `${f.kind}\u0000${f.runtime}`;
    byRuntime.set(id, [...(byRuntime.get(id) ?? []), { key: f.key, step }]);
  }
  cache.set(index, byRuntime);
  return byRuntime;
}

/**
 * The version steps of one runtime's page: every change measured side by side (significant ones
 * first, then by size), and every step between two adjacent measured versions of a row that no run
 * measured side by side, which is listed as "separate runs" without a change.
 */
export function versionSteps(
  index: SiteIndex,
  view: RuntimeView,
): { sideBySide: SideBySideStep[]; separate: SeparateStep[] } {
  const keyed = allSideBySide(index).get(`${view.kind}\u0000${view.name}`) ?? [];
  const covered = new Set(keyed.map((k) => k.key));
  const separate: SeparateStep[] = [];
  for (const family of view.families)
    for (const row of family.rows) {
      const partnerName = view.kind === 'cri' ? row.ociName : row.criName;
      let prev: VersionPoint | null = null;
      for (const c of row.cells) {
        if (!c) continue;
        const key = stepKey([
          row.hostClassId,
          row.metric.key,
          view.kind,
          view.name,
          partnerName,
          row.partnerVersion,
          row.parameters,
          prev?.version ?? '',
          c.version,
        ]);
        if (prev && !covered.has(key))
          separate.push({
            basis: 'separate runs',
            hostClassId: row.hostClassId,
            metric: row.metric,
            partner: row.partner,
            from: prev,
            to: c,
          });
        prev = c;
      }
    }
  const size = (s: SideBySideStep) => Math.abs(Math.log1p(s.change));
  return {
    sideBySide: keyed
      .map((k) => k.step)
      .sort((a, b) => Number(b.significant) - Number(a.significant) || size(b) - size(a)),
    separate,
  };
}
