// The engines view: what Docker, Podman or nerdctl add over the bare CRI for one OCI runtime
// version on one host — each engine-level metric beside the CRI-level metric of the same work (the
// runner's one table, ENGINE_COUNTERPARTS, and its pairing rule), as the shared overhead table
// (overhead.ts): both medians, engine − CRI with its bootstrap interval and the ratio. The numbers
// come from the site index's columns (no result file is read again). Pure.
import { ENGINE_COUNTERPARTS, pairsWith } from '@runtime-bench/runner/overhead';
import { comboLabel } from '../labels.ts';
import type { HostClassInfo, Observation, SiteIndex } from '../site-index.ts';
import { overheadRows, type OverheadRow, type PickedSide, type SideValue } from './overhead.ts';

/** One engine × OCI runtime target of the newest run that measured it on a host class. */
export interface EngineGroup {
  host: HostClassInfo;
  /** the engine target's id, e.g. docker/crun */
  targetId: string;
  engine: string;
  engineVersion: string;
  oci: string;
  ociVersion: string;
  /** the CRI-level target(s) beside it (with versions), or null when none ran this OCI runtime version */
  criTarget: string | null;
  /** every CRI side comes from the engine's own run (else some from another run on the same host) */
  sameRun: boolean;
  /** why there is no CRI side at all, in a sentence; null when there is one */
  noCriLevel: string | null;
  rows: OverheadRow[];
}

/** The parameters without the engine's own `network`, which the CRI level does not take. */
function withoutNetwork(json: string): string {
  const { network: _network, ...rest } = JSON.parse(json) as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** The run targets with any metric of `benchmark` (its first metric's rows). */
function ranBenchmark(index: SiteIndex, benchmark: string): Set<number> {
  const first = index.metrics.find((m) => m.benchmark === benchmark);
  return new Set(first ? (index.rowsOf(first.key)?.runTarget ?? []) : []);
}

/**
 * The CRI-level run target beside an engine run target for one benchmark pair: the same OCI
 * runtime name and version with a result of the CRI-level benchmark, in the engine's own run
 * first; else in the newest run on the identical host (the whole fingerprint but its fixes, as
 * `compare` pairs runs). Null when none.
 */
function criCounterpart(index: SiteIndex, engineRt: number, ran: ReadonlySet<number>): number | null {
  const e = index.runTargets[engineRt]!;
  const run = index.runs[e.run]!;
  let best: number | null = null;
  for (const rt of ran) {
    const t = index.runTargets[rt]!;
    if (!pairsWith('engine', e, t)) continue;
    const r = index.runs[t.run]!;
    const bestRun = best === null ? null : index.runTargets[best]!.run;
    if (t.run === e.run) {
      if (bestRun !== e.run || rt < best!) best = rt;
      continue;
    }
    if (r.hostKey !== run.hostKey || bestRun === e.run) continue;
    if (bestRun === null || r.time > index.runs[bestRun]!.time) best = rt;
  }
  return best;
}

function observation(index: SiteIndex, benchmark: string, metric: string, rt: number): Observation | null {
  const info = index.metrics.find((m) => m.benchmark === benchmark && m.metric === metric);
  if (!info) return null;
  return index.observationsOf(info.key, (x) => x === rt)[0] ?? null;
}

function sideOf(index: SiteIndex, obs: Observation | null, rt: number, what: string): PickedSide {
  const missing = (why: string): PickedSide => ({ side: { kind: 'missing', why } });
  if (!obs) return missing(`no ${what} result`);
  if (obs.status !== 'ok')
    return missing(`${what}: status "${obs.status}"${obs.reason ? `: ${obs.reason}` : ''}`);
  if (obs.samples.length === 0) return missing(`no samples of ${what}`);
  const unit = index.metrics.find((m) => m.key === obs.metricKey)!.unit;
  const side: SideValue = {
    kind: 'value',
    median: obs.median!,
    n: obs.samples.length,
    unit,
    runs: [index.runs[obs.run]!],
    target: comboLabel(index.runTargets[rt]!),
  };
  return { side, samples: obs.samples };
}

/**
 * For each host class and engine target (the newest run that measured it there), each
 * counterpart metric beside the CRI-level target of the same OCI runtime version: both medians,
 * engine − CRI with its 95 % bootstrap interval (seed 1), and the ratio.
 */
export function engineOverheadView(index: SiteIndex): EngineGroup[] {
  // newest run target per host class × engine target id (runTargets run oldest first)
  const newest = new Map<string, number>();
  index.runTargets.forEach((t, rt) => {
    if (t.transport === 'engine') newest.set(`${t.hostClassId}\u0000${t.targetId}`, rt);
  });
  const hosts = new Map(index.hostClasses.map((h) => [h.id, h]));
  const groups: EngineGroup[] = [];
  const ran = new Map(ENGINE_COUNTERPARTS.map((c) => [c.cri, ranBenchmark(index, c.cri)]));
  for (const rt of newest.values()) {
    const e = index.runTargets[rt]!;
    const beside = new Set<number>();
    const criOf = new Map(ENGINE_COUNTERPARTS.map((c) => [c, criCounterpart(index, rt, ran.get(c.cri)!)]));
    const rows = overheadRows(ENGINE_COUNTERPARTS, (counterpart, m) => {
      const criRt = criOf.get(counterpart)!;
      const c = criRt === null ? null : index.runTargets[criRt]!;
      const eo = observation(index, counterpart.upper, m.upper, rt);
      // a metric the engine target did not report (the index lists every defined one)
      if (!eo || (eo.status === 'ok' && eo.samples.length === 0)) return null;
      if (criRt !== null) beside.add(criRt);
      const co = criRt === null ? null : observation(index, counterpart.cri, m.cri, criRt);
      const upper = sideOf(index, eo, rt, `${counterpart.upper} ${m.upper}`);
      let cri: PickedSide =
        criRt === null
          ? {
              side: {
                kind: 'missing',
                why: `no CRI-level ${e.ociName} ${e.ociVersion} with ${counterpart.cri} on this host`,
              },
            }
          : sideOf(index, co, criRt, `${counterpart.cri} ${m.cri} of ${c!.targetId}`);
      const differ =
        co &&
        withoutNetwork(index.parameterSets[eo.parameters]!) !==
          withoutNetwork(index.parameterSets[co.parameters]!);
      if (differ && 'samples' in cri)
        cri = {
          side: { kind: 'missing', why: `${counterpart.cri} ran with other parameters: not comparable` },
        };
      return { upper, cri, unit: upper.side.kind === 'value' ? upper.side.unit : null };
    });
    const sides = [...beside].map((x) => index.runTargets[x]!);
    groups.push({
      host: hosts.get(e.hostClassId)!,
      targetId: e.targetId,
      engine: e.criName,
      engineVersion: e.criVersion,
      oci: e.ociName,
      ociVersion: e.ociVersion,
      criTarget:
        sides.length > 0
          ? [...new Set(sides.map((c) => `${c.targetId} (${comboLabel(c)})`))].join(', ')
          : null,
      sameRun: sides.length > 0 && sides.every((c) => c.run === e.run),
      noCriLevel:
        sides.length > 0
          ? null
          : `No CRI-level run (transport grpc or crictl) of ${e.ociName} ${e.ociVersion} with these benchmarks on this host: run the CRI targets in the same config as the engine targets to have a number beside the engine's.`,
      rows,
    });
  }
  const hostOrder = new Map(index.hostClasses.map((h, i) => [h.id, i]));
  return groups.sort(
    (a, b) =>
      hostOrder.get(a.host.id)! - hostOrder.get(b.host.id)! ||
      a.engine.localeCompare(b.engine) ||
      a.oci.localeCompare(b.oci) ||
      a.targetId.localeCompare(b.targetId),
  );
}
