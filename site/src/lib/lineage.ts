// Which earlier target a run's target continues: history is followed by what was measured, not
// by the target's label. A target id is the config's name for an endpoint × handler and may be
// renamed between runs ("containerd-1.6/runc" → "containerd/runc") while the same containerd and
// runc are measured; the site's series, matrix columns and trends follow the lineage instead.
// Pure: runs are handed in oldest first, as the index is built.

/** What a target measured, as far as following it across runs needs. */
export interface MeasuredTarget {
  /** the result's target id (the label) */
  id: string;
  criName: string;
  criVersion: string;
  ociName: string;
  ociVersion: string;
  handler: string;
  transport: string;
  kubernetes: { node: string; runtimeClass: string } | null;
}

/**
 * The identity a lineage keeps across runs: the CRI runtime, the OCI runtime, the runtime handler
 * and how the numbers were taken (for a pod-level target also its RuntimeClass; the nodes of one
 * node class are one history, as the Kubernetes page pools them). Versions are not part of it: a
 * new runc on the same handler is what nightly tracking must follow.
 */
export function measuredIdentity(t: MeasuredTarget): string {
  const pod = t.kubernetes ? ` · RuntimeClass ${t.kubernetes.runtimeClass}` : '';
  return `cri ${t.criName} · handler ${t.handler} · oci ${t.ociName} · ${t.transport}${pod}`;
}

/**
 * How well a target continues a lineage whose newest target was `last` (same identity assumed):
 * the same label counts most, then the same CRI version, then the same OCI version, so that two
 * endpoints of one run (containerd 1.6 and 2.1, both with a runc handler) keep their own lines.
 * Null when neither the label nor the CRI version is the same: a target that shares only a runc
 * version with a lineage measured another endpoint (containerd 1.7.35 beside a containerd 1.6.20
 * line), and taking that line over would plot one containerd under the other's name — and let a
 * later 1.6.20 target without the 1.7.35 benchmarks hide them.
 */
function affinity(t: MeasuredTarget, last: MeasuredTarget): number | null {
  const sameId = t.id === last.id;
  const sameCri = t.criVersion === last.criVersion;
  if (!sameId && !sameCri) return null;
  return (sameId ? 4 : 0) + (sameCri ? 2 : 0) + (t.ociVersion === last.ociVersion ? 1 : 0);
}

interface Lineage {
  name: string;
  identity: string;
  last: MeasuredTarget;
  lastRun: number;
}

/** Follows targets across the runs of each host class (one instance per index build). */
export class Lineages {
  private readonly byHost = new Map<string, Lineage[]>();

  /**
   * The lineage name of each target of one run (in the order given). A target joins the lineage
   * of the same identity that it matches best (see affinity: the same label or CRI version at
   * least; the most recent one on a tie), each
   * lineage taking at most one target per run; a target without one starts a lineage named by its
   * id (made unique within the host class).
   */
  assign(hostClassId: string, run: number, targets: readonly MeasuredTarget[]): string[] {
    let lineages = this.byHost.get(hostClassId);
    if (!lineages) this.byHost.set(hostClassId, (lineages = []));
    const pairs: { t: number; l: number; score: number }[] = [];
    targets.forEach((t, ti) => {
      const identity = measuredIdentity(t);
      lineages.forEach((l, li) => {
        const score = l.identity === identity ? affinity(t, l.last) : null;
        if (score !== null) pairs.push({ t: ti, l: li, score });
      });
    });
    pairs.sort((a, b) => b.score - a.score || lineages[b.l]!.lastRun - lineages[a.l]!.lastRun || a.t - b.t);
    const names: (string | undefined)[] = targets.map(() => undefined);
    const taken = new Set<number>();
    for (const p of pairs) {
      if (names[p.t] !== undefined || taken.has(p.l)) continue;
      taken.add(p.l);
      names[p.t] = lineages[p.l]!.name;
      lineages[p.l]!.last = targets[p.t]!;
      lineages[p.l]!.lastRun = run;
    }
    return targets.map((t, ti) => {
      const found = names[ti];
      if (found !== undefined) return found;
      const used = new Set(lineages.map((l) => l.name));
      let name = t.id;
      for (let k = 2; used.has(name); k++) name = `${t.id} (${k})`;
      lineages.push({ name, identity: measuredIdentity(t), last: t, lastRun: run });
      return name;
    });
  }
}
