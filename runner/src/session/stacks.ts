// The local stacks of one run session: brought up when a run needs them (again when the handlers
// a run asks for changed: a bisection's builds), each noted in the install record before it
// starts (so `uninstall --state` stops even a half-started one), and taken down when the session
// ends, whatever happened, unless the user asked to keep them. A stack that was already up when
// the session asked for it is someone else's: it is used, never taken down. Every stack the
// session uses is locked from its first use to the session's end: no other command drives it meanwhile.
import type { Config } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';

/** One stack a run needs. */
export interface SessionStack {
  name: string;
  cri?: 'containerd' | 'cri-o';
  /** The daemon binary of this stack; undefined: the one on PATH. */
  daemonBinary?: string | undefined;
  fixHost: boolean;
  extraHandlers: Config['stack']['extraHandlers'];
  subnet: Config['stack']['subnet'];
  images: Config['images'];
  /** The handlers the run measures on it: a stack already up without one of them is refused. */
  handlers: readonly string[];
}

/** The stack operations a session uses (stack/manager.ts in the CLI, a recorder in tests). */
export interface StackOps {
  up(stack: SessionStack): Promise<{ handlers: string[]; alreadyUp: boolean }>;
  down(name: string): Promise<void>;
  /** Notes the stack in the install record before it starts. */
  record?(name: string): Promise<void>;
  /**
   * Takes the stack's lock for the rest of the session (stack/lock.ts): another command's
   * sweep on the same stack is refused, naming this one, until the session ends. Returns the release.
   */
  lock?(name: string): Promise<() => Promise<void>>;
}

export interface StackKeeper {
  /**
   * Brings `stacks` up, in order. `fresh`: a stack of that name that this session did not start
   * is taken down first (its handlers would be someone else's builds) instead of being reused.
   */
  ensure(stacks: readonly SessionStack[], options?: { fresh?: boolean }): Promise<void>;
  /** Takes down every stack this session started, newest first; returns what could not go down. */
  close(): Promise<string[]>;
}

export function stackKeeper(
  ops: StackOps,
  options: { keep: boolean; log: (line: string) => void },
): StackKeeper {
  // name → what it was brought up with, for the stacks this session started.
  const started = new Map<string, string>();
  // name → release, for every stack this session uses (started or found up): held until close().
  const locks = new Map<string, () => Promise<void>>();
  const order: string[] = [];
  const takeDown = async (name: string): Promise<void> => {
    started.delete(name);
    order.splice(order.indexOf(name), 1);
    await ops.down(name);
  };
  return {
    async ensure(stacks, { fresh = false } = {}) {
      for (const stack of stacks) {
        const key = JSON.stringify([stack.cri, stack.daemonBinary, stack.extraHandlers, stack.subnet]);
        const current = started.get(stack.name);
        if (current === key) continue;
        if (ops.lock && !locks.has(stack.name)) locks.set(stack.name, await ops.lock(stack.name));
        if (current !== undefined) await takeDown(stack.name);
        else if (fresh) await ops.down(stack.name);
        await ops.record?.(stack.name);
        const { handlers, alreadyUp } = await ops.up(stack);
        if (!alreadyUp) {
          started.set(stack.name, key);
          order.push(stack.name);
        }
        const missing = stack.handlers.filter((h) => !handlers.includes(h));
        if (missing.length > 0)
          throw new RbError(
            'STACK_SESSION',
            `stack "${stack.name}" has no handler ${missing.join(', ')}${alreadyUp ? ' (it was already up)' : ''}`,
            alreadyUp
              ? `runtime-bench stack down --name ${stack.name}, then sweep again`
              : 'see the stack log above for why the handler was skipped',
          );
      }
    },
    async close() {
      const problems: string[] = [];
      if (!options.keep)
        for (const name of [...order].reverse())
          await takeDown(name).catch((error: unknown) => {
            problems.push(`${name}: ${errorMessage(error)}`);
            options.log(`stack down failed: ${name}: ${errorMessage(error)}`);
          });
      // Only once they are down (or kept): the next command finds them settled.
      for (const [name, release] of locks) {
        locks.delete(name);
        await release();
      }
      return problems;
    },
  };
}
