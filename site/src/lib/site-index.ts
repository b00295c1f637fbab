// The site index's model: what every page view (views/*.ts) selects from — one observation per
// run × target × metric, with the runs, metrics and host classes they belong to. Only types and the
// few definitions every side shares; the index is built by index-builder.ts from the digests of
// run-digest.ts (made in the loading worker threads), and labelled by labels.ts.
import {
  effectiveRunStatus,
  partialReason,
  type Direction,
  type RunResult,
  type RunStatus,
  type Target,
  type Unit,
} from '@runtime-bench/schemas';
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
  /** as every reader states it (runStatusOf): an older file's "complete" may be partial */
  status: RunStatus;
  /** why the run is partial or incomplete */
  statusReason: string | undefined;
  toolVersion: string;
  /** measured by runtime-bench from a checkout with uncommitted changes ("+dirty" commit) */
  modifiedCheckout: boolean;
}

/**
 * A run's status as the site states it: the file's own from schemaVersion 6; an older file's
 * "complete" is partial when a benchmark × target measured nothing (effectiveRunStatus, the
 * rule the runner writes by), with what measured nothing as the reason.
 */
export function runStatusOf(
  run: Pick<RunResult, 'schemaVersion' | 'status' | 'incompleteReason' | 'results'>,
): { status: RunStatus; why: string | undefined } {
  const status = effectiveRunStatus(run);
  if (status === 'partial') return { status, why: partialReason(run.results) };
  return { status, why: status === 'incomplete' ? run.incompleteReason : undefined };
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

/** Two run targets (indexes into SiteIndex.runTargets) of one run, measured side by side. */
export interface SideBySideRef {
  run: number;
  a: number;
  b: number;
  component: 'oci' | 'cri' | 'engine' | 'none';
  declared: boolean;
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
  /**
   * Every pair of run targets that measured two versions of one component side by side in one
   * run (run-digest.ts SideBySidePair), `a` the older version: where a version change is read.
   */
  sideBySide: SideBySideRef[];
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
