// Benchmark pages: trends over versions and over time, distributions of the latest runs. Pure.
import { quantile, quantileOfSorted } from '@runtime-bench/runner/stats';
import { medianInterval, medianIntervalOfSorted, type MedianInterval } from '@runtime-bench/runner/stats';
import {
  comboLabel,
  comboRefOf,
  type ComboRef,
  type MetricInfo,
  type Observation,
  type RunMeta,
  type SiteIndex,
} from '../site-index.ts';
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
  /** the other runtime of the pair, the one not on the x axis */
  partner: string;
  points: VersionPoint[];
}

export interface VersionChart {
  kind: 'cri' | 'oci';
  runtime: string;
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
  combo: string;
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

interface Pool {
  samples: number[];
  runs: Set<number>;
}

/** Pooled samples per host class × runtime × partner × version, for one metric. */
function versionPools(obs: readonly Observation[], kind: 'cri' | 'oci'): Map<string, Map<string, Pool>> {
  const pools = new Map<string, Map<string, Pool>>();
  for (const o of obs) {
    // The partner's version is part of the key: a trend over runc versions is only drawn across
    // runs with the same containerd version, so a containerd upgrade never reads as a runc change.
    const partnerVersion = kind === 'cri' ? o.ociVersion : o.criVersion;
    const key = `${o.hostClassId}\u0000${o.criName}\u0000${o.ociName}\u0000${partnerVersion}`;
    const version = kind === 'cri' ? o.criVersion : o.ociVersion;
    let byVersion = pools.get(key);
    if (!byVersion) pools.set(key, (byVersion = new Map()));
    let pool = byVersion.get(version);
    if (!pool) byVersion.set(version, (pool = { samples: [], runs: new Set() }));
    for (const v of o.samples) pool.samples.push(v);
    pool.runs.add(o.run);
  }
  return pools;
}

function versionPoint(version: string, pool: Pool): VersionPoint {
  // Pools hold up to tens of thousands of samples: sort once for the median and its interval.
  const sorted = Float64Array.from(pool.samples).sort();
  const ci = medianIntervalOfSorted(sorted);
  return {
    version,
    median: quantileOfSorted(sorted, 0.5),
    lower: ci?.lower ?? null,
    upper: ci?.upper ?? null,
    n: pool.samples.length,
    runs: pool.runs.size,
  };
}

function versionCharts(obs: readonly Observation[]): VersionChart[] {
  const charts: VersionChart[] = [];
  for (const kind of ['oci', 'cri'] as const) {
    const byRuntime = new Map<string, VersionSeries[]>();
    const versions = new Map<string, Set<string>>();
    for (const [key, byVersion] of versionPools(obs, kind)) {
      const [hostClassId, criName, ociName, partnerVersion] = key.split('\u0000') as [
        string,
        string,
        string,
        string,
      ];
      const runtime = kind === 'cri' ? criName : ociName;
      const ordered = [...byVersion.keys()].sort(compareVersions);
      const series: VersionSeries = {
        hostClassId,
        criName,
        ociName,
        partner: `${kind === 'cri' ? ociName : criName} ${partnerVersion}`,
        points: ordered.map((v) => versionPoint(v, byVersion.get(v)!)),
      };
      const list = byRuntime.get(runtime) ?? [];
      list.push(series);
      byRuntime.set(runtime, list);
      const vs = versions.get(runtime) ?? new Set();
      for (const v of ordered) vs.add(v);
      versions.set(runtime, vs);
    }
    for (const runtime of [...byRuntime.keys()].sort()) {
      const series = byRuntime
        .get(runtime)!
        .sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.partner.localeCompare(b.partner));
      charts.push({ kind, runtime, versions: sortVersions(versions.get(runtime)!), series });
    }
  }
  return charts;
}

const chartsByMetric = new WeakMap<SiteIndex, Map<string, VersionChart[]>>();

/** Observations with samples and status "ok" of one metric. */
function okObservations(all: readonly Observation[]): Observation[] {
  return all.filter((o) => o.status === 'ok' && o.samples.length > 0);
}

/**
 * The version trends of one metric, computed once per index: benchmark pages and runtime pages
 * show the same pooled medians, and pooling ten thousand runs is the costly part of a build.
 */
export function versionChartsOf(index: SiteIndex, metricKey: string): VersionChart[] {
  let map = chartsByMetric.get(index);
  if (!map) chartsByMetric.set(index, (map = new Map()));
  let charts = map.get(metricKey);
  if (!charts) map.set(metricKey, (charts = versionCharts(okObservations(index.observationsOf(metricKey)))));
  return charts;
}

/** Everything one benchmark page (one metric) shows. */
export function benchmarkView(index: SiteIndex, metric: MetricInfo): BenchmarkView {
  const all = index.observationsOf(metric.key);
  const ok = okObservations(all);
  const excluded = all.filter((o) => o.samples.length > 0).length - ok.length;

  const timeGroups = new Map<string, Observation[]>();
  for (const o of ok) {
    const key = `${o.hostClassId}\u0000${o.combo}`;
    const list = timeGroups.get(key) ?? [];
    list.push(o);
    timeGroups.set(key, list);
  }
  const timeSeries: TimeSeries[] = [...timeGroups.values()]
    .map((list) => {
      const kept = list.slice(-TIME_POINTS);
      const first = list[0]!;
      return {
        hostClassId: first.hostClassId,
        combo: first.combo,
        criName: first.criName,
        ociName: first.ociName,
        omitted: list.length - kept.length,
        points: kept.map((o) => ({
          t: o.time,
          median: o.median!,
          n: o.samples.length,
          runId: index.runs[o.run]!.runId,
          versions: `${o.criName} ${o.criVersion} · ${o.ociName} ${o.ociVersion}`,
        })),
      };
    })
    .sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.combo.localeCompare(b.combo));

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
      };
    })
    .sort((a, b) => a.hostClassId.localeCompare(b.hostClassId) || a.combo.localeCompare(b.combo));

  return { metric, versionCharts: versionChartsOf(index, metric.key), timeSeries, distributions, excluded };
}
