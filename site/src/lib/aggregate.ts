// Build-time aggregation of validated result files into the small, precomputed structures each
// page renders. Pure: plain values in, plain values out; the files are read by load.ts.
import { hostClassOf, type Direction, type RunResult, type Unit } from '@runtime-bench/schemas';
import {
  median,
  medianInterval,
  medianIntervalOfSorted,
  quantile,
  quantileOfSorted,
  type MedianInterval,
} from '@runtime-bench/runner/stats';
import type { LoadedRun } from './load.ts';
import { compareWithBest, type Verdict } from './significance.ts';
import { slugify } from './slug.ts';
import { compareVersions, sortVersions } from './versions.ts';

/** The marker of generated files (site/bench/synthetic.ts); such runs are never shown as real. */
export function isSynthetic(run: RunResult): boolean {
  return run.tool.version === 'synthetic' || run.host.hostname.startsWith('synthetic-');
}

export interface RunMeta {
  index: number;
  runId: string;
  file: string;
  startedAt: string;
  time: number;
  hostClass: string;
  hostClassId: string;
  hostname: string;
  synthetic: boolean;
  status: RunResult['status'];
  incompleteReason: string | undefined;
  toolVersion: string;
}

/** One metric across all runs: its benchmark (the family), name, unit and better direction. */
export interface MetricInfo {
  key: string;
  benchmark: string;
  benchmarkDescription: string;
  metric: string;
  unit: Unit;
  direction: Direction;
  description: string;
  /** URL path below /benchmark/, e.g. "operations.container.lifecycle/createcontainer" */
  slug: string;
}

/** A CRI runtime × runtime handler as it appears across runs, e.g. "containerd/runc". */
export interface ComboRef {
  combo: string;
  criName: string;
  criVersion: string;
  ociName: string;
  ociVersion: string;
  handler: string;
}

/** One metric of one target of one run, including benchmarks that produced no samples. */
export interface Observation extends ComboRef {
  run: number;
  hostClassId: string;
  time: number;
  metricKey: string;
  status: RunResult['results'][number]['status'];
  reason: string | undefined;
  samples: readonly number[];
  median: number | null;
  errors: number;
}

export interface HostClassInfo {
  id: string;
  label: string;
  runs: number;
  synthetic: boolean;
}

export interface SiteIndex {
  runs: RunMeta[];
  observations: Observation[];
  metrics: MetricInfo[];
  hostClasses: HostClassInfo[];
  criNames: string[];
  ociNames: string[];
  anySynthetic: boolean;
}

/** The label of a combination with its versions, e.g. "containerd 1.7.2 · runc 1.1.5". */
export function comboLabel(c: ComboRef): string {
  const handler = c.handler === c.ociName ? '' : ` (handler ${c.handler})`;
  return `${c.criName} ${c.criVersion} · ${c.ociName} ${c.ociVersion}${handler}`;
}

/**
 * The version-free name of a combination, stable across runs: the result's target id, i.e. the
 * config's endpoint label / runtime handler ("containerd/runc" by default). Two endpoints of one
 * run (say containerd 1.6 and 2.1, both with a "runc" handler) carry different labels, so their
 * columns and lines never merge.
 */
export function comboName(t: { id: string }): string {
  return t.id;
}

function metricKeyOf(benchmark: string, metric: string, unit: string): string {
  return `${benchmark}\u0000${metric}\u0000${unit}`;
}

/**
 * Flattens runs (sorted by start time, as loadRuns returns them) into one observation per
 * run × target × benchmark metric. A benchmark without samples (unsupported, failed, …) yields
 * an observation per metric of its definition, so that the reason reaches every cell.
 */
export function buildIndex(loaded: readonly LoadedRun[]): SiteIndex {
  const runs: RunMeta[] = [];
  const observations: Observation[] = [];
  const metrics = new Map<string, MetricInfo>();
  const metricOrder = new Map<string, number>();
  const hosts = new Map<string, HostClassInfo>();
  const criNames = new Set<string>();
  const ociNames = new Set<string>();
  for (const { run, file } of loaded) {
    const hostClass = hostClassOf(run.host);
    const hostClassId = slugify(hostClass);
    const synthetic = isSynthetic(run);
    const meta: RunMeta = {
      index: runs.length,
      runId: run.runId,
      file,
      startedAt: run.startedAt,
      time: Date.parse(run.startedAt),
      hostClass,
      hostClassId,
      hostname: run.host.hostname,
      synthetic,
      status: run.status,
      incompleteReason: run.incompleteReason,
      toolVersion: run.tool.version,
    };
    runs.push(meta);
    const host = hosts.get(hostClassId) ?? { id: hostClassId, label: hostClass, runs: 0, synthetic: true };
    host.runs++;
    host.synthetic &&= synthetic;
    hosts.set(hostClassId, host);
    const definitions = new Map(run.benchmarks.map((b) => [b.name, b]));
    // Later runs overwrite descriptions, so the newest wording wins; order follows definitions.
    for (const b of run.benchmarks) {
      b.metrics.forEach((m, i) => {
        const key = metricKeyOf(b.name, m.name, m.unit);
        metrics.set(key, {
          key,
          benchmark: b.name,
          benchmarkDescription: b.description,
          metric: m.name,
          unit: m.unit,
          direction: m.direction,
          description: m.description,
          slug: '',
        });
        if (!metricOrder.has(key)) metricOrder.set(key, i);
      });
    }
    const targets = new Map(run.targets.map((t) => [t.id, t]));
    for (const r of run.results) {
      const t = targets.get(r.target)!;
      criNames.add(t.cri.name);
      ociNames.add(t.oci.name);
      const combo: ComboRef = {
        combo: comboName(t),
        criName: t.cri.name,
        criVersion: t.cri.version,
        ociName: t.oci.name,
        ociVersion: t.oci.version,
        handler: t.handler,
      };
      const base = {
        ...combo,
        run: meta.index,
        hostClassId,
        time: meta.time,
        status: r.status,
        reason: r.reason,
      };
      const reported = new Set<string>();
      for (const m of r.metrics) {
        const key = metricKeyOf(r.benchmark, m.name, m.unit);
        reported.add(key);
        if (!metrics.has(key)) {
          // A metric missing from the definitions still deserves a row rather than silence.
          metrics.set(key, {
            key,
            benchmark: r.benchmark,
            benchmarkDescription: definitions.get(r.benchmark)?.description ?? r.benchmark,
            metric: m.name,
            unit: m.unit,
            direction: m.direction,
            description: m.name,
            slug: '',
          });
          metricOrder.set(key, 1000);
        }
        observations.push({
          ...base,
          metricKey: key,
          samples: m.samples,
          median: m.samples.length > 0 ? median(m.samples) : null,
          errors: m.errors.count,
        });
      }
      for (const def of definitions.get(r.benchmark)?.metrics ?? []) {
        const key = metricKeyOf(r.benchmark, def.name, def.unit);
        if (reported.has(key)) continue;
        observations.push({ ...base, metricKey: key, samples: [], median: null, errors: 0 });
      }
    }
  }
  const sorted = [...metrics.values()].sort(
    (a, b) =>
      a.benchmark.localeCompare(b.benchmark) ||
      metricOrder.get(a.key)! - metricOrder.get(b.key)! ||
      a.metric.localeCompare(b.metric) ||
      a.unit.localeCompare(b.unit),
  );
  const slugs = new Set<string>();
  for (const m of sorted) {
    let slug = `${m.benchmark}/${slugify(m.metric)}`;
    if (slugs.has(slug)) slug = `${slug}-${slugify(m.unit)}`;
    slugs.add(slug);
    m.slug = slug;
  }
  return {
    runs,
    observations,
    metrics: sorted,
    hostClasses: [...hosts.values()].sort((a, b) => b.runs - a.runs || a.label.localeCompare(b.label)),
    criNames: [...criNames].sort(),
    ociNames: [...ociNames].sort(),
    anySynthetic: runs.some((r) => r.synthetic),
  };
}

// ---------------------------------------------------------------------------------------------
// Overview: the latest comparison matrix per host class.

export interface MatrixColumn extends ComboRef {
  label: string;
  run: RunMeta;
}

export type MatrixCell =
  | { kind: 'missing' }
  | { kind: 'status'; status: Observation['status']; reason: string | undefined }
  | {
      kind: 'value';
      status: Observation['status'];
      reason: string | undefined;
      median: number;
      n: number;
      errors: number;
      interval: MedianInterval | null;
      verdict: Verdict;
    };

export interface MatrixRow {
  metric: MetricInfo;
  cells: MatrixCell[];
}

export interface MatrixFamily {
  benchmark: string;
  description: string;
  rows: MatrixRow[];
}

export interface HostMatrix {
  host: HostClassInfo;
  columns: MatrixColumn[];
  families: MatrixFamily[];
}

/**
 * For each host class, the newest run of each combination forms a column; each row is one metric
 * with the median of that run's samples. The best cell of a row (by the metric's direction,
 * among cells whose benchmark status is "ok") is marked, every other ok cell is tested against it
 * (see compareWithBest), and cells without samples carry their status and reason.
 */
export function overview(index: SiteIndex): HostMatrix[] {
  const byKey = new Map<string, Observation>();
  const latest = new Map<string, Map<string, Observation>>(); // host → combo → newest observation
  for (const o of index.observations) {
    byKey.set(`${o.run}\u0000${o.combo}\u0000${o.metricKey}`, o);
    let combos = latest.get(o.hostClassId);
    if (!combos) latest.set(o.hostClassId, (combos = new Map()));
    const prev = combos.get(o.combo);
    if (!prev || o.run > prev.run) combos.set(o.combo, o);
  }
  return index.hostClasses.map((host) => {
    const columns: MatrixColumn[] = [...(latest.get(host.id)?.values() ?? [])]
      .map((o) => {
        const ref: ComboRef = {
          combo: o.combo,
          criName: o.criName,
          criVersion: o.criVersion,
          ociName: o.ociName,
          ociVersion: o.ociVersion,
          handler: o.handler,
        };
        return { ...ref, label: comboLabel(ref), run: index.runs[o.run]! };
      })
      .sort((a, b) => a.criName.localeCompare(b.criName) || a.handler.localeCompare(b.handler));
    const present = new Set(
      index.observations.filter((o) => o.hostClassId === host.id).map((o) => o.metricKey),
    );
    const families: MatrixFamily[] = [];
    for (const metric of index.metrics) {
      if (!present.has(metric.key)) continue;
      const found = columns.map((c) => byKey.get(`${c.run.index}\u0000${c.combo}\u0000${metric.key}`));
      const competing = found.map((o) => (o && o.status === 'ok' ? o.samples : []));
      const verdicts = compareWithBest(competing, metric.direction);
      const cells: MatrixCell[] = found.map((o, i): MatrixCell => {
        if (!o) return { kind: 'missing' };
        if (o.samples.length === 0) return { kind: 'status', status: o.status, reason: o.reason };
        return {
          kind: 'value',
          status: o.status,
          reason: o.reason,
          median: o.median!,
          n: o.samples.length,
          errors: o.errors,
          interval: medianInterval(o.samples),
          verdict:
            o.status === 'ok'
              ? verdicts[i]!
              : { kind: 'untested', why: `benchmark status is "${o.status}": not compared` },
        };
      });
      let family = families.at(-1);
      if (!family || family.benchmark !== metric.benchmark) {
        family = { benchmark: metric.benchmark, description: metric.benchmarkDescription, rows: [] };
        families.push(family);
      }
      family.rows.push({ metric, cells });
    }
    return { host, columns, families };
  });
}

// ---------------------------------------------------------------------------------------------
// Benchmark pages: trends over versions and over time, distributions of the latest runs.

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
    const key = `${o.hostClassId}\u0000${o.criName}\u0000${o.ociName}`;
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
      const [hostClassId, criName, ociName] = key.split('\u0000') as [string, string, string];
      const runtime = kind === 'cri' ? criName : ociName;
      const ordered = [...byVersion.keys()].sort(compareVersions);
      const series: VersionSeries = {
        hostClassId,
        criName,
        ociName,
        partner: kind === 'cri' ? ociName : criName,
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

const okByMetric = new WeakMap<SiteIndex, Map<string, Observation[]>>();
const chartsByMetric = new WeakMap<SiteIndex, Map<string, VersionChart[]>>();

/** Observations with samples and status "ok", by metric key (computed once per index). */
function okObservations(index: SiteIndex, metricKey: string): Observation[] {
  let map = okByMetric.get(index);
  if (!map) {
    map = new Map();
    for (const o of index.observations) {
      if (o.status !== 'ok' || o.samples.length === 0) continue;
      const list = map.get(o.metricKey) ?? [];
      list.push(o);
      map.set(o.metricKey, list);
    }
    okByMetric.set(index, map);
  }
  return map.get(metricKey) ?? [];
}

/**
 * The version trends of one metric, computed once per index: benchmark pages and runtime pages
 * show the same pooled medians, and pooling ten thousand runs is the costly part of a build.
 */
export function versionChartsOf(index: SiteIndex, metricKey: string): VersionChart[] {
  let map = chartsByMetric.get(index);
  if (!map) chartsByMetric.set(index, (map = new Map()));
  let charts = map.get(metricKey);
  if (!charts) map.set(metricKey, (charts = versionCharts(okObservations(index, metricKey))));
  return charts;
}

/** Everything one benchmark page (one metric) shows. */
export function benchmarkView(index: SiteIndex, metric: MetricInfo): BenchmarkView {
  const all = index.observations.filter((o) => o.metricKey === metric.key);
  const ok = okObservations(index, metric.key);
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
        combo: o.combo,
        criName: o.criName,
        criVersion: o.criVersion,
        ociName: o.ociName,
        ociVersion: o.ociVersion,
        handler: o.handler,
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

// ---------------------------------------------------------------------------------------------
// Runtime pages: one CRI or OCI runtime across its versions and every benchmark.

export interface RuntimeVersionRow {
  version: string;
  partners: string[];
  hostClassIds: string[];
  runs: number;
  first: string;
  last: string;
}

export interface RuntimeRow {
  hostClassId: string;
  metric: MetricInfo;
  criName: string;
  ociName: string;
  partner: string;
  /** one cell per version of the family's `versions` */
  cells: (VersionPoint | null)[];
}

export interface RuntimeFamily {
  benchmark: string;
  description: string;
  versions: string[];
  rows: RuntimeRow[];
}

export interface RuntimeView {
  kind: 'cri' | 'oci';
  name: string;
  versions: RuntimeVersionRow[];
  families: RuntimeFamily[];
}

/** The runtimes that get a page, by kind. */
export function runtimes(index: SiteIndex): { kind: 'cri' | 'oci'; name: string }[] {
  return [
    ...index.criNames.map((name) => ({ kind: 'cri' as const, name })),
    ...index.ociNames.map((name) => ({ kind: 'oci' as const, name })),
  ];
}

/** Everything one runtime page shows: its versions, and each metric's median per version. */
export function runtimeView(index: SiteIndex, kind: 'cri' | 'oci', name: string): RuntimeView {
  const mine = index.observations.filter((o) => (kind === 'cri' ? o.criName : o.ociName) === name);
  const versionOf = (o: Observation) => (kind === 'cri' ? o.criVersion : o.ociVersion);
  const partnerOf = (o: Observation) => (kind === 'cri' ? o.ociName : o.criName);

  const byVersion = new Map<string, { partners: Set<string>; hosts: Set<string>; runs: Set<number> }>();
  for (const o of mine) {
    const v = versionOf(o);
    const e = byVersion.get(v) ?? { partners: new Set(), hosts: new Set(), runs: new Set() };
    e.partners.add(partnerOf(o));
    e.hosts.add(o.hostClassId);
    e.runs.add(o.run);
    byVersion.set(v, e);
  }
  const versions: RuntimeVersionRow[] = sortVersions(byVersion.keys()).map((version) => {
    const e = byVersion.get(version)!;
    const runs = [...e.runs].sort((a, b) => a - b);
    return {
      version,
      partners: [...e.partners].sort(),
      hostClassIds: [...e.hosts].sort(),
      runs: runs.length,
      first: index.runs[runs[0]!]!.startedAt,
      last: index.runs[runs.at(-1)!]!.startedAt,
    };
  });

  const families: RuntimeFamily[] = [];
  for (const metric of index.metrics) {
    const chart = versionChartsOf(index, metric.key).find((c) => c.kind === kind && c.runtime === name);
    if (!chart || chart.series.length === 0) continue;
    let family = families.at(-1);
    if (!family || family.benchmark !== metric.benchmark) {
      family = {
        benchmark: metric.benchmark,
        description: metric.benchmarkDescription,
        versions: [],
        rows: [],
      };
      families.push(family);
    }
    for (const s of chart.series) {
      // cells hold this series' points for now; aligned to the family's versions below
      family.rows.push({
        hostClassId: s.hostClassId,
        metric,
        criName: s.criName,
        ociName: s.ociName,
        partner: s.partner,
        cells: s.points,
      });
    }
  }
  for (const family of families) {
    family.versions = sortVersions(family.rows.flatMap((r) => r.cells.map((c) => c!.version)));
    for (const row of family.rows) {
      const have = new Map(row.cells.map((c) => [c!.version, c]));
      row.cells = family.versions.map((v) => have.get(v) ?? null);
    }
    family.rows.sort(
      (a, b) =>
        a.hostClassId.localeCompare(b.hostClassId) ||
        index.metrics.indexOf(a.metric) - index.metrics.indexOf(b.metric) ||
        a.partner.localeCompare(b.partner),
    );
  }
  return { kind, name, versions, families };
}

/** The relative change of each cell against the row's oldest measured version, in percent. */
export function percentChange(cells: readonly (VersionPoint | null)[]): (number | null)[] {
  const base = cells.find((c) => c !== null)?.median;
  if (base === undefined || base === 0) return cells.map(() => null);
  return cells.map((c) => (c === null ? null : ((c.median - base) / Math.abs(base)) * 100));
}
