// The site index: every validated result file flattened into one observation per run × target ×
// metric, which each page view (views/*.ts) selects from. Pure: plain values in, plain values out;
// the files are read by load.ts.
import { hostClassOf, type Direction, type RunResult, type Target, type Unit } from '@runtime-bench/schemas';
import { median as medianOf } from '@runtime-bench/runner/stats';
import type { LoadedRun } from './load.ts';
import { slugify } from './slug.ts';

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

/** What the site shows of a kubernetes target (a node × RuntimeClass): result.ts's target.kubernetes. */
export type KubernetesRef = Pick<
  NonNullable<Target['kubernetes']>,
  'node' | 'runtimeClass' | 'kubeletVersion'
>;

/** A CRI runtime × runtime handler as it appears across runs, e.g. "containerd/runc". */
export interface ComboRef {
  combo: string;
  criName: string;
  criVersion: string;
  ociName: string;
  ociVersion: string;
  handler: string;
  /** how the numbers were taken: "grpc", "crictl" (CRI-level) or "kubernetes" (pods) */
  transport: Target['transport'];
  /** null for a CRI-level target */
  kubernetes: KubernetesRef | null;
}

/** The combination an observation (or any ComboRef-shaped value) belongs to, and nothing more. */
export function comboRefOf(c: ComboRef): ComboRef {
  const { combo, criName, criVersion, ociName, ociVersion, handler, transport, kubernetes } = c;
  return { combo, criName, criVersion, ociName, ociVersion, handler, transport, kubernetes };
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

/** One target of one run that has results: a column of the observations. */
export interface RunTarget extends ComboRef {
  run: number;
  hostClassId: string;
}

export interface HostClassInfo {
  id: string;
  label: string;
  runs: number;
  synthetic: boolean;
}

export interface SiteIndex {
  runs: RunMeta[];
  metrics: MetricInfo[];
  hostClasses: HostClassInfo[];
  criNames: string[];
  ociNames: string[];
  anySynthetic: boolean;
  /** every run × target with results, oldest run first */
  runTargets: RunTarget[];
  /** the metric keys observed on each host class */
  metricKeysByHost: Map<string, Set<string>>;
  /**
   * The observations of one metric, oldest run first, made on each call from compact columns
   * (ten thousand runs hold millions of observations; a page needs one metric's at a time).
   * `where` picks run targets (indexes into runTargets) before anything is made.
   */
  observationsOf(metricKey: string, where?: (runTarget: number) => boolean): Observation[];
  /**
   * The same rows as read-only columns, for views that scan every row of a metric (the pooled
   * version trends) and would otherwise make an object and a sample copy per row.
   */
  rowsOf(metricKey: string): MetricRows | undefined;
  /** Every observation, made on each access: for small indexes (tests), not for pages. */
  readonly observations: Observation[];
}

/**
 * The label of a combination with its versions, e.g. "containerd 1.7.2 · runc 1.1.5", or for a
 * pod-level target "node-1 × RuntimeClass gvisor (handler runsc) · kubelet v1.34.4 · containerd 2.1.4"
 * (its OCI runtime's version is not known through the Kubernetes API).
 */
export function comboLabel(c: ComboRef): string {
  if (c.kubernetes) return `${kubernetesTargetLabel(c)} · ${c.criName} ${c.criVersion}`;
  const handler = c.handler === c.ociName ? '' : ` (handler ${c.handler})`;
  return `${c.criName} ${c.criVersion} · ${c.ociName} ${c.ociVersion}${handler}`;
}

/** A pod-level target as node × RuntimeClass with its handler and kubelet. */
export function kubernetesTargetLabel(c: {
  handler: string;
  kubernetes?: KubernetesRef | null | undefined;
}): string {
  const k = c.kubernetes!;
  return `${k.node} × RuntimeClass ${k.runtimeClass} (handler ${c.handler}) · kubelet ${k.kubeletVersion}`;
}

/**
 * A result's target with its versions: "containerd 2.1.9 · runc 1.3.6", or for a pod-level target
 * its node, RuntimeClass, handler and kubelet (the Kubernetes API does not tell the OCI runtime's
 * version).
 */
export function targetVersionsLabel(t: Target): string {
  if (t.kubernetes) return `${kubernetesTargetLabel(t)} · ${t.cri.name} ${t.cri.version}`;
  return `${t.cri.name} ${t.cri.version} · ${t.oci.name} ${t.oci.version}`;
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

/** The benchmark statuses, coded by position in the digests. */
const STATUSES = [
  'ok',
  'invalid',
  'unsupported',
  'failed',
  'interrupted',
] as const satisfies readonly Observation['status'][];

/** A metric as a run defines it (or, `fallback`, as a result reports it without a definition). */
export interface MetricDefinitionEntry extends Omit<MetricInfo, 'slug'> {
  /** its position in the benchmark's definition (1000 for a fallback), which orders the rows */
  order: number;
  fallback: boolean;
}

/**
 * What the site keeps of one result file: its metadata, its targets, its metric definitions and
 * one compact row per target × metric (samples of all rows in one array). Made by digestRun in
 * the loading worker threads; plain data and typed arrays, cheap to hand between threads.
 */
export interface RunDigest {
  meta: Omit<RunMeta, 'index'>;
  /** the targets that have results, in the order results name them first */
  targets: ComboRef[];
  /** definitions first (newest wording wins), then fallbacks for metrics without one */
  definitions: MetricDefinitionEntry[];
  /** the metric keys rows refer to */
  keys: string[];
  rows: {
    key: Int32Array;
    target: Int32Array;
    status: Uint8Array;
    /** NaN: no samples */
    median: Float64Array;
    errors: Float64Array;
    /** samples per row; a row's samples follow the previous rows' in `samples` */
    n: Int32Array;
    samples: Float64Array;
    /** [row, reason] of rows whose result gives a reason */
    reasons: [number, string][];
  };
}

/**
 * The digest of one run: one row per target × benchmark metric. A benchmark without samples
 * (unsupported, failed, …) yields a row per metric of its definition, so that the reason reaches
 * every cell.
 */
export function digestRun(run: RunResult, file: string): RunDigest {
  const hostClass = hostClassOf(run.host);
  const definitions: MetricDefinitionEntry[] = [];
  const defined = new Set<string>();
  const byName = new Map(run.benchmarks.map((b) => [b.name, b]));
  for (const b of run.benchmarks) {
    b.metrics.forEach((m, i) => {
      const key = metricKeyOf(b.name, m.name, m.unit);
      defined.add(key);
      definitions.push({
        key,
        benchmark: b.name,
        benchmarkDescription: b.description,
        metric: m.name,
        unit: m.unit,
        direction: m.direction,
        description: m.description,
        order: i,
        fallback: false,
      });
    });
  }
  const targetById = new Map(run.targets.map((t) => [t.id, t]));
  const targetIndex = new Map<string, number>();
  const targets: ComboRef[] = [];
  const keys: string[] = [];
  const keyIndex = new Map<string, number>();
  const key = [] as number[];
  const target = [] as number[];
  const status = [] as number[];
  const median = [] as number[];
  const errors = [] as number[];
  const n = [] as number[];
  const samples = [] as number[];
  const reasons: [number, string][] = [];
  const push = (
    k: string,
    ti: number,
    r: RunResult['results'][number],
    values: readonly number[],
    errs: number,
  ) => {
    let ki = keyIndex.get(k);
    if (ki === undefined) keyIndex.set(k, (ki = keys.push(k) - 1));
    if (r.reason !== undefined) reasons.push([key.length, r.reason]);
    key.push(ki);
    target.push(ti);
    status.push(STATUSES.indexOf(r.status));
    median.push(values.length > 0 ? medianOf(values) : NaN);
    errors.push(errs);
    n.push(values.length);
    for (const v of values) samples.push(v);
  };
  for (const r of run.results) {
    let ti = targetIndex.get(r.target);
    if (ti === undefined) {
      const t = targetById.get(r.target)!;
      ti =
        targets.push({
          combo: comboName(t),
          criName: t.cri.name,
          criVersion: t.cri.version,
          ociName: t.oci.name,
          ociVersion: t.oci.version,
          handler: t.handler,
          transport: t.transport,
          kubernetes: t.kubernetes
            ? {
                node: t.kubernetes.node,
                runtimeClass: t.kubernetes.runtimeClass,
                kubeletVersion: t.kubernetes.kubeletVersion,
              }
            : null,
        }) - 1;
      targetIndex.set(r.target, ti);
    }
    const reported = new Set<string>();
    for (const m of r.metrics) {
      const k = metricKeyOf(r.benchmark, m.name, m.unit);
      reported.add(k);
      if (!defined.has(k)) {
        // A metric missing from the definitions still deserves a row rather than silence.
        defined.add(k);
        definitions.push({
          key: k,
          benchmark: r.benchmark,
          benchmarkDescription: byName.get(r.benchmark)?.description ?? r.benchmark,
          metric: m.name,
          unit: m.unit,
          direction: m.direction,
          description: m.name,
          order: 1000,
          fallback: true,
        });
      }
      push(k, ti, r, m.samples, m.errors.count);
    }
    for (const def of byName.get(r.benchmark)?.metrics ?? []) {
      const k = metricKeyOf(r.benchmark, def.name, def.unit);
      if (!reported.has(k)) push(k, ti, r, [], 0);
    }
  }
  return {
    meta: {
      runId: run.runId,
      file,
      startedAt: run.startedAt,
      time: Date.parse(run.startedAt),
      hostClass,
      hostClassId: slugify(hostClass),
      hostname: run.host.hostname,
      synthetic: isSynthetic(run),
      status: run.status,
      incompleteReason: run.incompleteReason,
      toolVersion: run.tool.version,
    },
    targets,
    definitions,
    keys,
    rows: {
      key: Int32Array.from(key),
      target: Int32Array.from(target),
      status: Uint8Array.from(status),
      median: Float64Array.from(median),
      errors: Float64Array.from(errors),
      n: Int32Array.from(n),
      samples: Float64Array.from(samples),
      reasons,
    },
  };
}

/** The status code of an "ok" row in MetricRows.status. */
export const STATUS_OK = 0;

/**
 * One metric's rows across runs as columns, oldest run first: row i belongs to run target
 * runTarget[i] and has samples samples[start[i]] … samples[start[i] + n[i] - 1].
 */
export interface MetricRows {
  readonly runTarget: readonly number[];
  /** coded by position in STATUSES; STATUS_OK is "ok" */
  readonly status: readonly number[];
  /** NaN: no samples */
  readonly median: readonly number[];
  readonly start: readonly number[];
  readonly n: readonly number[];
  readonly samples: readonly number[];
}

/** One metric's rows across runs, as columns. */
interface MetricColumns {
  runTarget: number[];
  status: number[];
  median: number[];
  errors: number[];
  start: number[];
  n: number[];
  samples: number[];
  reasons: Map<number, string>;
}

/**
 * Builds the site index from digests added oldest run first (as loadRuns sorts them): O(rows)
 * numbers in columns per metric, no object per observation, so ten thousand runs fit.
 */
export class IndexBuilder {
  private readonly runs: RunMeta[] = [];
  private readonly metrics = new Map<string, MetricInfo>();
  private readonly metricOrder = new Map<string, number>();
  private readonly hosts = new Map<string, HostClassInfo>();
  private readonly criNames = new Set<string>();
  private readonly ociNames = new Set<string>();
  private readonly runTargets: RunTarget[] = [];
  private readonly columns = new Map<string, MetricColumns>();
  private readonly keysByHost = new Map<string, Set<string>>();

  add(d: RunDigest): void {
    const meta: RunMeta = { index: this.runs.length, ...d.meta };
    this.runs.push(meta);
    const hostClassId = meta.hostClassId;
    const host = this.hosts.get(hostClassId) ?? {
      id: hostClassId,
      label: meta.hostClass,
      runs: 0,
      synthetic: true,
    };
    host.runs++;
    host.synthetic &&= meta.synthetic;
    this.hosts.set(hostClassId, host);
    // Later runs overwrite descriptions, so the newest wording wins; order follows definitions.
    for (const def of d.definitions) {
      if (def.fallback && this.metrics.has(def.key)) continue;
      const { order, fallback: _, ...info } = def;
      this.metrics.set(def.key, { ...info, slug: '' });
      if (!this.metricOrder.has(def.key)) this.metricOrder.set(def.key, order);
    }
    const firstTarget = this.runTargets.length;
    for (const t of d.targets) {
      this.criNames.add(t.criName);
      this.ociNames.add(t.ociName);
      this.runTargets.push({ ...comboRefOf(t), run: meta.index, hostClassId });
    }
    let hostKeys = this.keysByHost.get(hostClassId);
    if (!hostKeys) this.keysByHost.set(hostClassId, (hostKeys = new Set()));
    const cols = d.keys.map((k) => {
      hostKeys.add(k);
      let c = this.columns.get(k);
      if (!c) {
        c = {
          runTarget: [],
          status: [],
          median: [],
          errors: [],
          start: [],
          n: [],
          samples: [],
          reasons: new Map(),
        };
        this.columns.set(k, c);
      }
      return c;
    });
    const rows = d.rows;
    const reasons = new Map(rows.reasons);
    let offset = 0;
    for (let i = 0; i < rows.key.length; i++) {
      const c = cols[rows.key[i]!]!;
      const reason = reasons.get(i);
      if (reason !== undefined) c.reasons.set(c.runTarget.length, reason);
      c.runTarget.push(firstTarget + rows.target[i]!);
      c.status.push(rows.status[i]!);
      c.median.push(rows.median[i]!);
      c.errors.push(rows.errors[i]!);
      c.start.push(c.samples.length);
      const count = rows.n[i]!;
      c.n.push(count);
      for (let j = 0; j < count; j++) c.samples.push(rows.samples[offset + j]!);
      offset += count;
    }
  }

  finish(): SiteIndex {
    const sorted = [...this.metrics.values()].sort(
      (a, b) =>
        a.benchmark.localeCompare(b.benchmark) ||
        this.metricOrder.get(a.key)! - this.metricOrder.get(b.key)! ||
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
    const { runs, runTargets, columns } = this;
    const observationsOf = (metricKey: string, where?: (runTarget: number) => boolean): Observation[] => {
      const c = columns.get(metricKey);
      if (!c) return [];
      const out: Observation[] = [];
      for (let i = 0; i < c.runTarget.length; i++) {
        const rt = c.runTarget[i]!;
        if (where && !where(rt)) continue;
        const t = runTargets[rt]!;
        const median = c.median[i]!;
        out.push({
          ...comboRefOf(t),
          run: t.run,
          hostClassId: t.hostClassId,
          time: runs[t.run]!.time,
          metricKey,
          status: STATUSES[c.status[i]!]!,
          reason: c.reasons.get(i),
          samples: c.samples.slice(c.start[i]!, c.start[i]! + c.n[i]!),
          median: Number.isNaN(median) ? null : median,
          errors: c.errors[i]!,
        });
      }
      return out;
    };
    return {
      runs,
      metrics: sorted,
      hostClasses: [...this.hosts.values()].sort((a, b) => b.runs - a.runs || a.label.localeCompare(b.label)),
      criNames: [...this.criNames].sort(),
      ociNames: [...this.ociNames].sort(),
      anySynthetic: runs.some((r) => r.synthetic),
      runTargets,
      metricKeysByHost: this.keysByHost,
      observationsOf,
      rowsOf: (metricKey) => columns.get(metricKey),
      get observations() {
        return [...columns.keys()].flatMap((k) => observationsOf(k));
      },
    };
  }
}

/** The index of loaded runs (sorted by start time, as loadRuns returns them). */
export function buildIndex(loaded: readonly LoadedRun[]): SiteIndex {
  const builder = new IndexBuilder();
  for (const { run, file } of loaded) builder.add(digestRun(run, file));
  return builder.finish();
}
