// The loading worker threads' wire format: what the site keeps of one result file (its metadata,
// targets, metric definitions and one compact row per target × metric), made by digestRun from a
// validated result and handed to the main thread, and to the digest cache, as plain data and typed
// arrays. Pure.
import { fromModifiedCheckout, hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { median as medianOf } from '@runtime-bench/runner/stats';
import { hash } from 'node:crypto';
import { canonicalJson, hostKey, pairsToDecide } from '@runtime-bench/runner/compare';
import { ENFORCEMENT_STATES, enforcementOf, type Enforcement } from './enforcement.ts';
import {
  isSynthetic,
  runStatusOf,
  STATUSES,
  type ComboRef,
  type MetricInfo,
  type RunMeta,
} from './site-index.ts';
import { slugify } from './slug.ts';

/** RunMeta's status fields: the status as the site states it (runStatusOf) and why. */
function statusFields(run: RunResult): Pick<RunMeta, 'status' | 'statusReason'> {
  const { status, why } = runStatusOf(run);
  return { status, statusReason: why };
}

/** The key of one metric across runs: benchmark, metric name and unit. */
export function metricKeyOf(benchmark: string, metric: string, unit: string): string {
  return `${benchmark}\u0000${metric}\u0000${unit}`;
}

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
    /** the row's benchmark parameters: an index into `parameterSets` */
    parameters: Int32Array;
    /** 0: the benchmark sets no limit; else 1 + the index of its state in ENFORCEMENT_STATES */
    enforcement: Uint8Array;
    /** [row, why] of rows with an enforcement state */
    enforcementWhy: [number, string][];
  };
  /** the distinct benchmark parameters of the run, as canonical JSON (keys sorted) */
  parameterSets: string[];
  /**
   * The versions this run measured side by side: the pairs `check` decides (its declared version
   * changes, else every pair the runner's versionPairs finds, as in a sweep), by index into
   * `targets` (pairs of a target without results are left out).
   */
  sideBySide: SideBySidePair[];
}

/** Two targets of one run that measured two versions of one component together (a = older). */
export interface SideBySidePair {
  a: number;
  b: number;
  component: 'oci' | 'cri' | 'engine' | 'none';
  /** declared in the run's config (config.versionChanges), not only found */
  declared: boolean;
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
  const parameterSets: string[] = [];
  const parameterIndex = new Map<string, number>();
  const parameters = [] as number[];
  const enforcement = [] as number[];
  const enforcementWhy: [number, string][] = [];
  let resultParameters = 0;
  let resultEnforcement: Enforcement | null = null;
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
    parameters.push(resultParameters);
    if (resultEnforcement) enforcementWhy.push([key.length, resultEnforcement.why]);
    enforcement.push(resultEnforcement ? 1 + ENFORCEMENT_STATES.indexOf(resultEnforcement.state) : 0);
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
      ti = targets.push(comboRefOfTarget(t)) - 1;
      targetIndex.set(r.target, ti);
    }
    const json = canonicalJson(r.parameters);
    let pi = parameterIndex.get(json);
    if (pi === undefined) parameterIndex.set(json, (pi = parameterSets.push(json) - 1));
    resultParameters = pi;
    const medians = new Map(
      r.metrics.map((m) => [m.name, m.samples.length > 0 ? medianOf(m.samples) : null]),
    );
    resultEnforcement = enforcementOf(r.benchmark, r.parameters, (name) => medians.get(name) ?? null);
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
      hostKey: hash('sha1', hostKey(run.host)),
      synthetic: isSynthetic(run),
      ...statusFields(run),
      toolVersion: run.tool.version,
      modifiedCheckout: fromModifiedCheckout(run.tool),
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
      parameters: Int32Array.from(parameters),
      enforcement: Uint8Array.from(enforcement),
      enforcementWhy,
    },
    parameterSets,
    sideBySide: pairsToDecide(run).flatMap(({ pair, declared }): SideBySidePair[] => {
      const a = targetIndex.get(pair.a.id);
      const b = targetIndex.get(pair.b.id);
      return a === undefined || b === undefined ? [] : [{ a, b, component: pair.component, declared }];
    }),
  };
}

/** A result's target as the index refers to it (its combo is its id until the builder names its lineage). */
export function comboRefOfTarget(t: RunResult['targets'][number]): ComboRef {
  return {
    // the target's id until the index builder names its lineage (lineage.ts)
    combo: t.id,
    targetId: t.id,
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
  };
}
