// The site index's model: what every page view (views/*.ts) selects from — one observation per
// run × target × metric, with the runs, metrics and host classes they belong to. Only types and the
// few definitions every side shares; the index is built by index-builder.ts from the digests of
// run-digest.ts (made in the loading worker threads), and labelled by labels.ts.
import type { Direction, RunResult, Target, Unit } from '@runtime-bench/schemas';
import type { Enforcement } from './enforcement.ts';

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
  /**
   * The host's whole fingerprint without its fixes, hashed: equal for runs on the identical host
   * (the engine overhead pairs runs across only then).
   */
  hostKey: string;
  synthetic: boolean;
  status: RunResult['status'];
  incompleteReason: string | undefined;
  /** targets whose every benchmark failed (a "complete" run with one of these is partial) */
  failedTargets: string[];
  toolVersion: string;
}

/** The targets of a run whose every benchmark failed (RunMeta.failedTargets). */
export function failedTargetsOf(run: Pick<RunResult, 'targets' | 'results'>): string[] {
  return run.targets
    .map((t) => t.id)
    .filter((id) => {
      const own = run.results.filter((r) => r.target === id);
      return own.length > 0 && own.every((r) => r.status === 'failed');
    });
}

/**
 * A run's status as the site states it: a run the runner called "complete" is "partial" when a
 * target failed every benchmark it was given — it measured nothing of that target.
 */
export function runStatusOf(run: {
  status: RunMeta['status'];
  incompleteReason?: string | undefined;
  failedTargets: readonly string[];
}): {
  status: string;
  why: string | undefined;
} {
  if (run.status === 'complete' && run.failedTargets.length > 0)
    return {
      status: 'partial',
      why: `${run.failedTargets.join(', ')} failed every benchmark`,
    };
  return { status: run.status, why: run.incompleteReason };
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
  /**
   * The version-free name of what was measured across runs: the lineage of the target (lineage.ts),
   * named by its first target id, so that a renamed target continues its history.
   */
  combo: string;
  /** the result's own target id in its run */
  targetId: string;
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
  const { combo, targetId, criName, criVersion, ociName, ociVersion, handler, transport, kubernetes } = c;
  return { combo, targetId, criName, criVersion, ociName, ociVersion, handler, transport, kubernetes };
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
  /** the benchmark parameters it was measured with: an index into SiteIndex.parameterSets */
  parameters: number;
  /** for a limits benchmark, whether its limit was enforced (enforcement.ts); else null */
  enforcement: Enforcement | null;
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
  /** every distinct set of benchmark parameters, as canonical JSON (Observation.parameters) */
  parameterSets: string[];
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

/** The benchmark statuses, coded by position in the digests. */
export const STATUSES = [
  'ok',
  'invalid',
  'unsupported',
  'failed',
  'interrupted',
] as const satisfies readonly Observation['status'][];

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
  /** index into SiteIndex.parameterSets */
  readonly parameters: readonly number[];
}
