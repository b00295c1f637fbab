// The change point the regression gate found in a flagged metric's nightly series (its night,
// the step with its interval, the component versions that changed at that run), as the home
// page, the Regressions page and their tests show it. Only formatting: every number comes from
// the gate's report (runner/src/compare/gate/types.ts, GateChangePoint). Pure.
import type { GateChangePoint } from '@runtime-bench/runner/compare';
import { formatChange, formatTime } from '@runtime-bench/runner/format';

/** The fields of the gate's change point the site shows. */
export type ChangePointLike = Pick<
  GateChangePoint,
  'runId' | 'startedAt' | 'nightsAgo' | 'step' | 'stepLower' | 'stepUpper' | 'versionChanges'
>;

export interface ChangePointView {
  runId: string;
  /** "2026-11-21 08:00 UTC (tonight)" / "(3 nights ago)" */
  night: string;
  /** "+12.0 % [+8.1 %, +16.2 %]" */
  step: string;
  /** "runc 1.1.5 → 1.3.6; containerd 1.7.2 → 2.1.9", or what to say when none changed */
  versions: string;
}

export const NO_VERSION_CHANGE = 'no component version changed';

/**
 * The change point as shown. `components` (the row's CRI and OCI runtime names) keeps the version
 * changes to the row's own components: a run holding several stacks lists other stacks' versions
 * too ("cri-o (none) → 1.30.2" on a containerd/runc row), which did not change what the row measured.
 */
export function changePointView(
  cp: ChangePointLike | null | undefined,
  components?: readonly string[],
): ChangePointView | null {
  if (!cp) return null;
  const own = components
    ? cp.versionChanges.filter((c) => components.some((name) => c.startsWith(`${name} `)))
    : cp.versionChanges;
  const ago =
    cp.nightsAgo === 0 ? 'this run' : cp.nightsAgo === 1 ? '1 run earlier' : `${cp.nightsAgo} runs earlier`;
  return {
    runId: cp.runId,
    night: `${formatTime(cp.startedAt)} (${ago})`,
    step: `${formatChange(cp.step)} [${formatChange(cp.stepLower)}, ${formatChange(cp.stepUpper)}]`,
    versions: own.length > 0 ? own.join('; ') : NO_VERSION_CHANGE,
  };
}
