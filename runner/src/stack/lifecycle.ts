// What `stack up` and `stack down` do about what they find, decided from plain values: reuse a
// stack that answers, clean up a stale or unreadable one first, refuse one of another CRI
// runtime; which bridge goes and whether the state file is kept, marked stopped or moved aside.
// No I/O here: manager.ts asks the host (host.ts) and carries the decisions out.
import { RbError } from '../errors.ts';
import { bridgeName } from './network.ts';
import type { CriName, StackState } from './state.ts';

/** What `stack up` found in the state dir before deciding. */
export interface UpFacts {
  name: string;
  cri: CriName;
  /** The state read from the state dir (null: none, or unreadable and already cleaned up). */
  existing: StackState | null;
  /** Does the existing state's daemon run and answer CRI? */
  answers: boolean;
}

export type UpDecision =
  | { kind: 'reuse'; state: StackState }
  /** Start afresh; `cleanFirst` says why the leftovers of an earlier stack go first. */
  | { kind: 'start'; cleanFirst: string | null };

export function decideUp(f: UpFacts): UpDecision {
  if (f.existing && f.existing.cri !== f.cri) {
    throw new RbError(
      'STACK_CRI_MISMATCH',
      `stack "${f.name}" runs ${f.existing.cri}, not ${f.cri}`,
      `run \`runtime-bench stack down --stack ${f.name} --purge\` first, or use another --stack`,
    );
  }
  if (f.existing && f.answers) return { kind: 'reuse', state: f.existing };
  if (f.existing)
    return {
      kind: 'start',
      cleanFirst: `stack "${f.name}" left state behind (${f.existing.cri} not answering): cleaning up first`,
    };
  return { kind: 'start', cleanFirst: null };
}

/** What `stack down` found (after pods, daemon and processes are handled). */
export interface DownFacts {
  name: string;
  /** The readable state, or null. */
  state: StackState | null;
  /** Is there a state file at all (it may be unreadable by this version)? */
  stateFileExists: boolean;
  purge: boolean;
  unmountFailures: readonly string[];
}

export interface DownPlan {
  /** The bridge to delete (when it exists): the state's, or for an unreadable state the stack's by name. */
  bridge: string | null;
  /** The state to record as stopped (pid null). */
  recordStopped: StackState | null;
  /**
   * An unreadable state file (another runtime-bench version wrote it) moves aside, so that
   * `stack up` starts afresh instead of refusing the same file again.
   */
  moveStateAside: boolean;
  /** The state dir goes only when asked and nothing is still mounted below it. */
  removeStateDir: boolean;
}

export function planDown(f: DownFacts): DownPlan {
  const unreadable = f.state === null && f.stateFileExists;
  return {
    bridge: f.state ? f.state.network.bridge : unreadable ? bridgeName(f.name) : null,
    recordStopped: f.state
      ? {
          ...f.state,
          pid: null,
          ...(f.state.registry ? { registry: { ...f.state.registry, pid: null } } : {}),
        }
      : null,
    moveStateAside: unreadable,
    removeStateDir: f.purge && f.unmountFailures.length === 0,
  };
}

/**
 * What marks a process as the stack's: its command line names the state dir. With the trailing
 * slash, so that stack "a" never matches the processes of stack "a2".
 */
export function stackProcessNeedle(stateDir: string): string {
  return `${stateDir.replace(/\/+$/, '')}/`;
}
