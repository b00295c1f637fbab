// The engine overhead of result files: for one OCI runtime version on one host, each engine-level
// metric minus the CRI-level metric of the same work (overhead/counterparts.ts), by the one
// estimator (overhead/estimate.ts): a difference of medians with a bootstrap interval and the ratio — what Docker, Podman or nerdctl add over the bare CRI, as the
// Kubernetes page shows the kubelet's share. Targets of one run are paired first (same host, same
// time, interleaved); a CRI-level target of another run only when no run of the engine target's own
// has one, and only on a host with the identical fingerprint. Pure: no I/O.
import type { BenchmarkResult, Direction, RunResult, Target, Unit } from '@runtime-bench/schemas';
import { canonicalJson } from '../results/assemble.ts';
import type { BootstrapOptions } from '../stats/index.ts';
import { ENGINE_COUNTERPARTS, type OverheadCounterpart } from './counterparts.ts';
import { overheadEstimate, type SideSummary } from './estimate.ts';
import { hostKey, isCriLevelTarget, isEngineTarget, pairingTarget, sameOciRuntime } from './pairing.ts';

/** One engine-level metric of one engine target beside its CRI-level counterpart. */
export interface EngineOverheadRow {
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
  /** the estimate (overhead/estimate.ts) under the engine's names, as `compare --json` prints it */
  engine: SideSummary;
  cri: SideSummary;
  difference: number | null;
  lower: number | null;
  upper: number | null;
  ratio: number | null;
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
        isCriLevelTarget(target) &&
        sameOciRuntime(pairingTarget(engine), pairingTarget(target)) &&
        resultOf(r, criBenchmark, target.id);
      return result ? [{ run: r, target, result }] : [];
    });
  const own = of(run);
  if (own.length > 0) return own;
  const key = hostKey(run.host);
  return runs.filter((r) => r !== run && hostKey(r.host) === key).flatMap(of);
}

function rowsOf(
  c: OverheadCounterpart,
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
    engineBenchmark: c.upper,
    criBenchmark: c.cri,
    engineSpan: c.spans?.upper ?? '',
    criSpan: c.spans?.cri ?? '',
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
    blocked = `${c.upper} on ${target.id} is ${result.status}${result.reason ? `: ${result.reason}` : ''}`;
  else if (sharedParameters(result.parameters) !== sharedParameters(cri.parameters))
    blocked = `parameters differ (${canonicalJson(result.parameters)} vs ${canonicalJson(cri.parameters)}): the two answer different questions`;
  return c.metrics.flatMap(({ upper: name, cri: criName }) => {
    const em = result.metrics.find((m) => m.name === name);
    if (!em) return [];
    const cm = cri.metrics.find((m) => m.name === criName);
    const notes = [...shared];
    let estimate = overheadEstimate([], [], bootstrap);
    if (blocked) notes.push(`${blocked}: no overhead`);
    else if (!cm) notes.push(`${c.cri} on ${criSide.target.id} has no metric ${criName}`);
    else if (cm.unit !== em.unit) notes.push(`units differ (${em.unit} vs ${cm.unit}): no overhead`);
    else estimate = overheadEstimate(cm.samples, em.samples, bootstrap);
    const { upperLevel, criLevel, ...rest } = estimate;
    // key order as `compare --json` has always printed a row
    return [
      {
        ...base,
        engine: upperLevel,
        cri: criLevel,
        ...rest,
        metric: name,
        unit: em.unit,
        direction: em.direction,
        notes,
      },
    ];
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
        const result = resultOf(run, c.upper, target.id);
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
