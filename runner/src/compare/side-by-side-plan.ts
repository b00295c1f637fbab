// Which previous versions tonight's run measures beside the new ones (docs/version-change.md):
// from the latest published nights of a target, before the run. A tracked target whose OCI
// runtime moved since its last night gets that night's version beside it (look 1); a pair declared
// on the last night whose verdict is still unclear is measured again, pooled with its earlier
// nights, until every metric is decided or `looks` nights are spent. Pure: the nights come in.
import type { RunResult, Target } from '@runtime-bench/schemas';
import { decideVersionChanges, type VersionChangeOptions } from './version-change.ts';

/** A target of tonight's run whose version may have moved: its id and the version installed for it. */
export interface TrackedTarget {
  id: string;
  version: string;
}

export interface PlannedPair {
  /** Tonight's target (the new version, "after"). */
  target: string;
  /** The OCI runtime and the versions: install `name@from` beside it. */
  name: string;
  from: string;
  to: string;
  /** The night this will be of the pair (1 = the version just moved). */
  look: number;
  why: string;
}

export interface SideBySidePlan {
  pairs: PlannedPair[];
  /** One line per tracked target that gets no pair, saying why. */
  notes: string[];
}

const newestFirst = (runs: readonly RunResult[]) =>
  [...runs].sort((x, y) => (x.startedAt < y.startedAt ? 1 : x.startedAt > y.startedAt ? -1 : 0));

/**
 * Tonight's pairs. `nights` are earlier runs of this host class (any order); only those with a
 * target of a tracked id count. A pair is planned only for an OCI runtime whose name is the same on
 * both nights (a target id reused for another runtime is no version change).
 */
export function planSideBySide(
  tracked: readonly TrackedTarget[],
  nights: readonly RunResult[],
  options: VersionChangeOptions,
): SideBySidePlan {
  const plan: SideBySidePlan = { pairs: [], notes: [] };
  for (const t of tracked) {
    const mine = newestFirst(nights).filter((r) => r.targets.some((x) => x.id === t.id));
    const last = mine[0];
    if (!last) {
      plan.notes.push(`${t.id}: no earlier night of this host class: nothing to measure beside ${t.version}`);
      continue;
    }
    const before = last.targets.find((x) => x.id === t.id)!;
    if (before.oci.version !== t.version) {
      plan.pairs.push({
        target: t.id,
        name: before.oci.name,
        from: before.oci.version,
        to: t.version,
        look: 1,
        why: `${before.oci.name} moved ${before.oci.version} → ${t.version} since run ${last.runId}`,
      });
      continue;
    }
    const repeat = unclearPair(t, mine, options);
    if (typeof repeat === 'string') plan.notes.push(`${t.id}: ${repeat}`);
    else plan.pairs.push(repeat);
  }
  return plan;
}

/** The pair declared for `t` on its last night, when still unclear with looks left; else why not. */
function unclearPair(
  t: TrackedTarget,
  mine: readonly RunResult[],
  options: VersionChangeOptions,
): PlannedPair | string {
  const previousOf = (run: RunResult): Target | undefined => {
    const declared = run.config.versionChanges?.find((p) => p.after === t.id);
    return declared && run.targets.find((x) => x.id === declared.before);
  };
  const last = mine[0]!;
  const earlier = previousOf(last);
  if (!earlier) return `${t.version} as on run ${last.runId}: no version change`;
  // The consecutive latest nights that measured this same pair (from → to).
  const same = (run: RunResult) =>
    previousOf(run)?.oci.version === earlier.oci.version &&
    run.targets.find((x) => x.id === t.id)?.oci.version === t.version;
  let count = 0;
  while (count < mine.length && same(mine[count]!)) count += 1;
  const label = `${earlier.oci.name} ${earlier.oci.version} → ${t.version}`;
  if (count >= options.looks)
    return `${label}: measured on ${count} nights, the most (looks ${options.looks})`;
  const pooled = mine.slice(0, count);
  const report = decideVersionChanges(
    { run: pooled[0]!, file: pooled[0]!.runId },
    pooled.slice(1).map((run) => ({ run, file: run.runId })),
    options,
  ).find((r) => r.declared && r.after === t.id);
  const open = report?.decision?.metrics.filter((m) => !m.final).map((m) => m.metric) ?? [];
  if (report?.decision && open.length === 0) return `${label}: decided after ${count} night(s)`;
  return {
    target: t.id,
    name: earlier.oci.name,
    from: earlier.oci.version,
    to: t.version,
    look: count + 1,
    why: `${label}: unclear after ${count} night(s)${open.length ? ` (${open.join(', ')})` : ''}`,
  };
}
