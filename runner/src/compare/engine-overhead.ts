// The engine overhead: for one OCI runtime version on one host, each engine-level metric minus the
// CRI-level metric of the same work (overhead/counterparts.ts), as a difference of medians with a
// bootstrap interval and the ratio — what Docker, Podman or nerdctl add over the bare CRI, as the
// Kubernetes page shows the kubelet's share. Targets of one run are paired first (same host, same
// time, interleaved); a CRI-level target of another run only when no run of the engine target's own
// has one, and only on a host with the identical fingerprint. Pure: no I/O.
import {
  type BenchmarkResult,
  type Direction,
  type HostFingerprint,
  type RunResult,
  type Target,
  type Unit,
} from '@runtime-bench/schemas';
import {
  ENGINE_COUNTERPARTS,
  isCriLevelTarget,
  isEngineTarget,
  sameOciRuntime,
  type EngineCounterpart,
} from '../overhead/counterparts.ts';
import { bootstrapDifferenceOfMediansCI, median, type BootstrapOptions } from '../stats/index.ts';
import { canonicalJson } from './keys.ts';

export { ENGINE_COUNTERPARTS, type EngineCounterpart } from '../overhead/counterparts.ts';

/** Both medians, engine − CRI with its interval, and engine / CRI. */
export interface OverheadEstimate {
  engine: { n: number; median: number | null };
  cri: { n: number; median: number | null };
  /** median(engine) − median(CRI), in the metric's unit; null when a side has no samples */
  difference: number | null;
  /** percentile-bootstrap interval of the difference; null with fewer than two samples a side */
  lower: number | null;
  upper: number | null;
  /** median(engine) / median(CRI); null when a side is missing or the CRI median is not > 0 */
  ratio: number | null;
}

/**
 * The overhead of one metric from its raw samples: the two sides are independent measurements
 * (different containers), resampled independently by bootstrapDifferenceOfMediansCI.
 */
export function overheadEstimate(
  cri: readonly number[],
  engine: readonly number[],
  bootstrap: BootstrapOptions,
): OverheadEstimate {
  const e = engine.length ? median(engine) : null;
  const c = cri.length ? median(cri) : null;
  const out: OverheadEstimate = {
    engine: { n: engine.length, median: e },
    cri: { n: cri.length, median: c },
    difference: e !== null && c !== null ? e - c : null,
    lower: null,
    upper: null,
    ratio: e !== null && c !== null && c > 0 ? e / c : null,
  };
  if (engine.length >= 2 && cri.length >= 2) {
    const ci = bootstrapDifferenceOfMediansCI(cri, engine, bootstrap);
    out.lower = ci.lower;
    out.upper = ci.upper;
  }
  return out;
}

/** One engine-level metric of one engine target beside its CRI-level counterpart. */
export interface EngineOverheadRow extends OverheadEstimate {
  /** e.g. docker/runc */
  engineTarget: string;
  /** e.g. "docker 20.10.24" */
  engineVersion: string;
  engineRunId: string;
  /** e.g. containerd/runc */
  criTarget: string;
  /** e.g. "containerd 1.6.20" */
  criVersion: string;
  criRunId: string;
  /** the two sides come from one run (else: another run on a host with the identical fingerprint) */
  sameRun: boolean;
  /** the OCI runtime both ran, e.g. "runc 1.1.5" */
  oci: string;
  engineBenchmark: string;
  criBenchmark: string;
  metric: string;
  unit: Unit;
  direction: Direction;
  engineSpan: string;
  criSpan: string;
  notes: string[];
}

export interface EngineOverheadOptions {
  /** Level of the intervals; default 0.95. */
  confidence?: number;
  /** Bootstrap seed; default 1. */
  seed?: number;
  /** Bootstrap resamples; default 10 000. */
  resamples?: number;
  /**
   * Only these engine targets, and beside them only these CRI-level targets when any is named
   * (compare --baseline-target / --target).
   */
  targets?: readonly string[];
}

/**
 * The host's fingerprint without the fixes a kind applied (a CRI stack's fixes, none for an engine
 * run): two runs are on the same host when everything else is identical, hostname included. The
 * site pairs runs across by the same key.
 */
export function hostKey(host: HostFingerprint): string {
  const { hostFixes: _fixes, ...rest } = host;
  return canonicalJson(rest);
}

const resultOf = (run: RunResult, benchmark: string, target: string): BenchmarkResult | undefined =>
  run.results.find((r) => r.benchmark === benchmark && r.target === target);

/** The parameters without the engine's own `network`, which the CRI level does not take. */
function sharedParameters(p: Record<string, unknown>): string {
  const { network: _network, ...rest } = p;
  return canonicalJson(rest);
}

/**
 * The CRI-level targets an engine target is paired with for one benchmark pair: those of the same
 * OCI runtime version with a result of the CRI-level benchmark, in its own run first, else in
 * other runs on the same host.
 */
function counterpartTargets(
  runs: readonly RunResult[],
  run: RunResult,
  engine: Target,
  criBenchmark: string,
): { run: RunResult; target: Target; result: BenchmarkResult }[] {
  const of = (r: RunResult) =>
    r.targets.flatMap((target) => {
      const result =
        isCriLevelTarget(target) && sameOciRuntime(engine, target) && resultOf(r, criBenchmark, target.id);
      return result ? [{ run: r, target, result }] : [];
    });
  const own = of(run);
  if (own.length > 0) return own;
  const key = hostKey(run.host);
  return runs.filter((r) => r !== run && hostKey(r.host) === key).flatMap(of);
}

function rowsOf(
  c: EngineCounterpart,
  engineSide: { run: RunResult; target: Target; result: BenchmarkResult },
  criSide: { run: RunResult; target: Target; result: BenchmarkResult },
  bootstrap: BootstrapOptions,
): EngineOverheadRow[] {
  const { run, target, result } = engineSide;
  const base = {
    engineTarget: target.id,
    engineVersion: `${target.cri.name} ${target.cri.version}`,
    engineRunId: run.runId,
    criTarget: criSide.target.id,
    criVersion: `${criSide.target.cri.name} ${criSide.target.cri.version}`,
    criRunId: criSide.run.runId,
    sameRun: criSide.run === run,
    oci: `${target.oci.name} ${target.oci.version}`,
    engineBenchmark: c.engine,
    criBenchmark: c.cri,
    engineSpan: c.engineSpan,
    criSpan: c.criSpan,
  };
  const shared: string[] = [];
  if (!base.sameRun)
    shared.push(
      `the CRI side is run ${criSide.run.runId} (no CRI-level ${base.oci} in the engine's run); same host fingerprint, but another time: drift between the runs counts as overhead`,
    );
  if (
    target.oci.path !== null &&
    criSide.target.oci.path !== null &&
    target.oci.path !== criSide.target.oci.path
  )
    shared.push(
      `the two sides ran different binaries of ${base.oci}: ${target.oci.path} and ${criSide.target.oci.path}`,
    );
  const cri = criSide.result;
  let blocked: string | null = null;
  if (cri.status !== 'ok')
    blocked = `${c.cri} on ${criSide.target.id} is ${cri.status}${cri.reason ? `: ${cri.reason}` : ''}`;
  else if (result.status !== 'ok')
    blocked = `${c.engine} on ${target.id} is ${result.status}${result.reason ? `: ${result.reason}` : ''}`;
  else if (sharedParameters(result.parameters) !== sharedParameters(cri.parameters))
    blocked = `parameters differ (${canonicalJson(result.parameters)} vs ${canonicalJson(cri.parameters)}): the two answer different questions`;
  return c.metrics.flatMap((name) => {
    const em = result.metrics.find((m) => m.name === name);
    if (!em) return [];
    const cm = cri.metrics.find((m) => m.name === name);
    const notes = [...shared];
    let estimate = overheadEstimate([], [], bootstrap);
    if (blocked) notes.push(`${blocked}: no overhead`);
    else if (!cm) notes.push(`${c.cri} on ${criSide.target.id} has no metric ${name}`);
    else if (cm.unit !== em.unit) notes.push(`units differ (${em.unit} vs ${cm.unit}): no overhead`);
    else estimate = overheadEstimate(cm.samples, em.samples, bootstrap);
    return [{ ...base, ...estimate, metric: name, unit: em.unit, direction: em.direction, notes }];
  });
}

/**
 * Every engine target of `runs` beside every CRI-level target of the same OCI runtime version that
 * ran the counterpart benchmark (own run first, else another run on the identical host), one row
 * per counterpart metric the engine target reported. Rows follow the runs, then the counterpart table, then the targets.
 */
export function engineOverhead(
  runs: readonly RunResult[],
  options: EngineOverheadOptions = {},
): EngineOverheadRow[] {
  const bootstrap = {
    confidence: options.confidence ?? 0.95,
    seed: options.seed ?? 1,
    resamples: options.resamples ?? 10_000,
  };
  const wanted = options.targets ? new Set(options.targets) : null;
  const rows: EngineOverheadRow[] = [];
  // The same file given twice (compare A.json A.json) is one run.
  const unique = [...new Map(runs.map((r) => [r.runId, r])).values()];
  for (const run of unique)
    for (const c of ENGINE_COUNTERPARTS)
      for (const target of run.targets.filter(isEngineTarget)) {
        const result = resultOf(run, c.engine, target.id);
        if (!result) continue;
        if (wanted && !wanted.has(target.id)) continue;
        const all = counterpartTargets(unique, run, target, c.cri);
        // an explicit CRI-level target (compare --baseline-target containerd/runc) narrows the pairs
        const named = all.filter((c) => wanted?.has(c.target.id));
        for (const cri of named.length > 0 ? named : all)
          rows.push(...rowsOf(c, { run, target, result }, cri, bootstrap));
      }
  return rows;
}
