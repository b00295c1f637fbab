// Benchmark pages: trends over versions and over time, distributions of the latest runs. Pure.
import { quantile, quantileOfSorted } from '@runtime-bench/runner/stats';
import { medianInterval, medianIntervalOfSorted, type MedianInterval } from '@runtime-bench/runner/stats';
import { comboLabel } from '../labels.ts';
import {
  comboRefOf,
  type ComboRef,
  type MetricInfo,
  type Observation,
  type MetricRows,
  type RunMeta,
  type SiteIndex,
  STATUS_OK,
} from '../site-index.ts';
import { parametersLabel } from '../parameters.ts';
import { compareVersions, sortVersions } from '../versions.ts';

export interface VersionPoint {
  version: string;
  median: number;
  lower: number | null;
  upper: number | null;
  /** pooled samples */
  n: number;
  runs: number;
}

export interface VersionSeries {
  hostClassId: string;
  criName: string;
  ociName: string;
  /** the other runtime of the pair, the one not on the x axis (and the parameters, where several) */
  partner: string;
  /** the partner runtime's version alone */
  partnerVersion: string;
  /** the benchmark parameters of every pooled sample: an index into SiteIndex.parameterSets */
  parameters: number;
  points: VersionPoint[];
}

export interface VersionChart {
  kind: 'cri' | 'oci';
  runtime: string;
  /** a container engine (its targets have transport "engine") in the CRI runtime's place */
  engine: boolean;
  /** x axis: every version of `runtime` with data, in version order */
  versions: string[];
  series: VersionSeries[];
}

export interface TimePoint {
  t: number;
  median: number;
  n: number;
  runId: string;
  versions: string;
}

export interface TimeSeries {
  hostClassId: string;
  /** the combination, and its parameters where the metric was measured with several sets */
  combo: string;
  parameters: number;
  criName: string;
  ociName: string;
  points: TimePoint[];
  /** older runs left out of the chart to keep the page small */
  omitted: number;
}

export interface DistributionRow extends ComboRef {
  hostClassId: string;
  label: string;
  run: RunMeta;
  status: Observation['status'];
  reason: string | undefined;
  samples: readonly number[];
  median: number | null;
  interval: MedianInterval | null;
  p25: number | null;
  p75: number | null;
  min: number | null;
  max: number | null;
  errors: number;
  /** the benchmark parameters in words */
  parameters: string;
  /** for a limits benchmark, whether the limit was enforced */
  enforcement: Observation['enforcement'];
}

export interface BenchmarkView {
  metric: MetricInfo;
  versionCharts: VersionChart[];
  timeSeries: TimeSeries[];
  distributions: DistributionRow[];
  /** observations left out of the trends because their benchmark status was not "ok" */
  excluded: number;
}

/** How many of the newest runs per combination the time trend ships. */
export const TIME_POINTS = 60;

/** The pools of one kind of version trend: one per host class × runtime × partner × version. */
interface PoolKeys {
  /** per run target of the index: its pool */
  poolOf: Int32Array;
  /** per pool: the series it belongs to and the version on the x axis */
  series: string[];
  version: string[];
}

const poolKeysByIndex = new WeakMap<SiteIndex, Record<'cri' | 'oci', PoolKeys>>();

/**
 * Which pool each run target's samples go to. The same for every metric, so it is made once per
 * index: the per-row work of the trends is then integer arithmetic, not string keys.
 */
function poolKeysOf(index: SiteIndex, kind: 'cri' | 'oci'): PoolKeys {
  let both = poolKeysByIndex.get(index);
  if (!both) {
    const make = (k: 'cri' | 'oci'): PoolKeys => {
      const ids = new Map<string, number>();
      const keys: PoolKeys = { poolOf: new Int32Array(index.runTargets.length), series: [], version: [] };
      index.runTargets.forEach((t, rt) => {
        // The partner's version is part of the key: a trend over runc versions is only drawn across
        // runs with the same containerd version, so a containerd upgrade never reads as a runc change.
        const partnerVersion = k === 'cri' ? t.ociVersion : t.criVersion;
        const series = `${t.hostClassId}\u0000${t.criName}\u0000${t.ociName}\u0000${partnerVersion}`;
        const version = k === 'cri' ? t.criVersion : t.ociVersion;
        const id = `${series}\u0000${version}`;
        let pool = ids.get(id);
        if (pool === undefined) {
          ids.set(id, (pool = keys.series.length));
          keys.series.push(series);
          keys.version.push(version);
        }
        keys.poolOf[rt] = pool;
      });
      return keys;
    };
    poolKeysByIndex.set(index, (both = { cri: make('cri'), oci: make('oci') }));
  }
  return both[kind];
}

/**
 * The pooled points of one metric and kind, by series: every "ok" sample of a pool in one typed
 * array, sized by a first counting pass (no growing arrays, no object per row).
 */
function versionPools(index: SiteIndex, rows: MetricRows, kind: 'cri' | 'oci'): Map<string, VersionPoint[]> {
  const keys = poolKeysOf(index, kind);
  const { runTarget, status, start, n, samples, parameters } = rows;
  // A pool is also split by the benchmark parameters: results measured with other parameters are
  // never pooled (1 thread for 2 s and 2 threads for 10 s are different questions).
  const sets = index.parameterSets.length;
  const poolIds = new Map<number, number>();
  const poolOf = new Int32Array(runTarget.length).fill(-1);
  const basePool: number[] = [];
  const paramsOf: number[] = [];
  for (let i = 0; i < runTarget.length; i++) {
    if (status[i] !== STATUS_OK || n[i] === 0) continue;
    const base = keys.poolOf[runTarget[i]!]!;
    const id = base * sets + parameters[i]!;
    let p = poolIds.get(id);
    if (p === undefined) {
      poolIds.set(id, (p = basePool.length));
      basePool.push(base);
      paramsOf.push(parameters[i]!);
    }
    poolOf[i] = p;
  }
  const pools = basePool.length;
  const count = new Int32Array(pools);
  const runs = new Int32Array(pools);
  const lastRun = new Int32Array(pools).fill(-1);
  for (let i = 0; i < runTarget.length; i++) {
    const p = poolOf[i]!;
    if (p < 0) continue;
    count[p] = count[p]! + n[i]!;
    // Rows come oldest run first, so a pool's distinct runs are its changes of run.
    const run = index.runTargets[runTarget[i]!]!.run;
    if (lastRun[p] !== run) {
      lastRun[p] = run;
      runs[p] = runs[p]! + 1;
    }
  }
  const pooled: (Float64Array | undefined)[] = Array.from({ length: pools }, (_, p) =>
    count[p]! > 0 ? new Float64Array(count[p]!) : undefined,
  );
  const filled = new Int32Array(pools);
  for (let i = 0; i < runTarget.length; i++) {
    const p = poolOf[i]!;
    if (p < 0) continue;
    const into = pooled[p]!;
    let at = filled[p]!;
    for (let j = start[i]!, end = j + n[i]!; j < end; j++) into[at++] = samples[j]!;
    filled[p] = at;
  }
  const bySeries = new Map<string, VersionPoint[]>();
  pooled.forEach((sorted, p) => {
    if (!sorted) return;
    // Pools hold up to tens of thousands of samples: sort once for the median and its interval.
    sorted.sort();
    const ci = medianIntervalOfSorted(sorted);
    const series = `${keys.series[basePool[p]!]!}\u0000${paramsOf[p]!}`;
    const list = bySeries.get(series) ?? [];
    list.push({
      version: keys.version[basePool[p]!]!,
      median: quantileOfSorted(sorted, 0.5),
      lower: ci?.lower ?? null,
      upper: ci?.upper ?? null,
      n: sorted.length,
      runs: runs[p]!,
    });
    bySeries.set(series, list);
  });
  return bySeries;
}

function versionCharts(index: SiteIndex, metricKey: string): VersionChart[] {
  const rows = index.rowsOf(metricKey);
  if (!rows) return [];
  const charts: VersionChart[] = [];
  const engines = new Set(index.runTargets.filter((t) => t.transport === 'engine').map((t) => t.criName));
  for (const kind of ['oci', 'cri'] as const) {
    const byRuntime = new Map<string, VersionSeries[]>();
    const versions = new Map<string, Set<string>>();
    const pools = versionPools(index, rows, kind);
    // parameters are named in the legend only where a metric was measured with more than one set
    const manySets = new Set([...pools.keys()].map((k) => k.split('\u0000')[4])).size > 1;
    for (const [key, points] of pools) {
      const [hostClassId, criName, ociName, partnerVersion, params] = key.split('\u0000') as [
        string,
        string,
        string,
        string,
        string,
      ];
      const parameters = Number(params);
      const runtime = kind === 'cri' ? criName : ociName;
      points.sort((a, b) => compareVersions(a.version, b.version));
      const series: VersionSeries = {
        hostClassId,
        criName,
        ociName,
        partner: `${kind === 'cri' ? ociName : criName} ${partnerVersion}${manySets ? ` · ${parametersLabel(index.parameterSets[parameters]!)}` : ''}`,
        partnerVersion,
        parameters,
        points,
      };
      const list = byRuntime.get(runtime) ?? [];
      list.push(series);
      byRuntime.set(runtime, list);
      const vs = versions.get(runtime) ?? new Set();
      for (const p of points) vs.add(p.version);
      versions.set(runtime, vs);
    }
    for (const runtime of [...byRuntime.keys()].sort()) {
      const series = byRuntime
        .get(runtime)!
        .sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.partner.localeCompare(b.partner));
      charts.push({
        kind,
        runtime,
        engine: kind === 'cri' && engines.has(runtime),
        versions: sortVersions(versions.get(runtime)!),
        series,
      });
    }
  }
  return charts;
}

const comboGroups = new WeakMap<SiteIndex, Int32Array>();

/** Per run target of the index: its host class × combination (a line of the time trend), as a number. */
function comboGroupsOf(index: SiteIndex): Int32Array {
  let groups = comboGroups.get(index);
  if (!groups) {
    const ids = new Map<string, number>();
    groups = Int32Array.from(index.runTargets, (t) => {
      const key = `${t.hostClassId}\u0000${t.combo}`;
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      return id;
    });
    comboGroups.set(index, groups);
  }
  return groups;
}

const chartsByMetric = new WeakMap<SiteIndex, Map<string, VersionChart[]>>();

/**
 * The version trends of one metric, computed once per index: benchmark pages and runtime pages
 * show the same pooled medians, and pooling ten thousand runs is the costly part of a build.
 */
export function versionChartsOf(index: SiteIndex, metricKey: string): VersionChart[] {
  let map = chartsByMetric.get(index);
  if (!map) chartsByMetric.set(index, (map = new Map()));
  let charts = map.get(metricKey);
  if (!charts) map.set(metricKey, (charts = versionCharts(index, metricKey)));
  return charts;
}

/** Everything one benchmark page (one metric) shows. */
export function benchmarkView(index: SiteIndex, metric: MetricInfo): BenchmarkView {
  const rows = index.rowsOf(metric.key);
  const groups = comboGroupsOf(index);
  // Time trends and counts straight from the columns: a metric has a row per run target of ten
  // thousand runs, and only the newest TIME_POINTS per line reach the page.
  const okRows = new Map<number, number[]>();
  const newest = new Map<number, number>();
  let withSamples = 0;
  let okCount = 0;
  const count = rows?.runTarget.length ?? 0;
  for (let i = 0; i < count; i++) {
    const rt = rows!.runTarget[i]!;
    const g = groups[rt]!;
    // The newest run target per host class × combination, whatever its status (rows are oldest first).
    if (!newest.has(g) || index.runTargets[newest.get(g)!]!.run < index.runTargets[rt]!.run)
      newest.set(g, rt);
    if (rows!.n[i] === 0) continue;
    withSamples++;
    if (rows!.status[i] !== STATUS_OK) continue;
    okCount++;
    // one line per combination and parameter set: a parameter change is not a step of the line
    const line = g * index.parameterSets.length + rows!.parameters[i]!;
    const list = okRows.get(line) ?? [];
    list.push(i);
    okRows.set(line, list);
  }
  const manySets = new Set([...okRows.values()].map((l) => rows!.parameters[l[0]!]!)).size > 1;
  const excluded = withSamples - okCount;
  const timeSeries: TimeSeries[] = [...okRows.values()]
    .map((list) => {
      const kept = list.slice(-TIME_POINTS);
      const first = index.runTargets[rows!.runTarget[list[0]!]!]!;
      const parameters = rows!.parameters[list[0]!]!;
      return {
        hostClassId: first.hostClassId,
        combo: manySets
          ? `${first.combo} · ${parametersLabel(index.parameterSets[parameters]!)}`
          : first.combo,
        parameters,
        criName: first.criName,
        ociName: first.ociName,
        omitted: list.length - kept.length,
        points: kept.map((i) => {
          const t = index.runTargets[rows!.runTarget[i]!]!;
          const run = index.runs[t.run]!;
          return {
            t: run.time,
            median: rows!.median[i]!,
            n: rows!.n[i]!,
            runId: run.runId,
            versions: t.kubernetes
              ? comboLabel(t)
              : `${t.criName} ${t.criVersion} · ${t.ociName} ${t.ociVersion}`,
          };
        }),
      };
    })
    .sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.combo.localeCompare(b.combo));

  const newestTargets = new Set(newest.values());
  const all = index.observationsOf(metric.key, (rt) => newestTargets.has(rt));
  // The newest observation per host class × combination, whatever its status, so that a latest
  // failure is shown rather than an older success.
  const latest = new Map<string, Observation>();
  for (const o of all) {
    const key = `${o.hostClassId}\u0000${o.combo}`;
    const prev = latest.get(key);
    if (!prev || o.run > prev.run) latest.set(key, o);
  }
  const distributions: DistributionRow[] = [...latest.values()]
    .map((o) => {
      const has = o.samples.length > 0;
      return {
        ...comboRefOf(o),
        hostClassId: o.hostClassId,
        label: comboLabel(o),
        run: index.runs[o.run]!,
        status: o.status,
        reason: o.reason,
        samples: o.samples,
        median: o.median,
        interval: medianInterval(o.samples),
        p25: has ? quantile(o.samples, 0.25) : null,
        p75: has ? quantile(o.samples, 0.75) : null,
        min: has ? Math.min(...o.samples) : null,
        max: has ? Math.max(...o.samples) : null,
        errors: o.errors,
        parameters: parametersLabel(index.parameterSets[o.parameters]!),
        enforcement: o.enforcement,
      };
    })
    .sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.combo.localeCompare(b.combo));

  return { metric, versionCharts: versionChartsOf(index, metric.key), timeSeries, distributions, excluded };
}
