// The stacks of a sweep: brought up one after another before its one run, each noted in the
// install record before it starts (so `uninstall --state` stops even a half-started one), and
// taken down afterwards, whatever happened, unless asked to keep them.
import type { Config } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { addStackToRecord } from '../install/index.ts';
import { stackDown, stackUp } from '../stack/manager.ts';

export interface SweepStackRequest {
  name: string;
  /** The containerd binary of this stack; undefined: the one on PATH. */
  daemonBinary: string | undefined;
  extraHandlers: Config['stack']['extraHandlers'];
  /** The handlers the run measures on it: a stack already up without one is refused. */
  handlers: string[];
}

export async function withSweepStacks<T>(
  stacks: readonly SweepStackRequest[],
  config: Config,
  options: { statePath: string; keep: boolean; log: (line: string) => void },
  body: () => Promise<T>,
): Promise<T> {
  const started: string[] = [];
  // Every stack goes down even when one cannot; the names of those that could not are returned.
  const down = async (): Promise<string[]> => {
    const problems: string[] = [];
    if (options.keep) return problems;
    for (const name of started.reverse())
      await stackDown({ name, purge: false, log: options.log }).catch((error: unknown) => {
        problems.push(`${name}: ${errorMessage(error)}`);
        options.log(`stack down failed: ${name}: ${errorMessage(error)}`);
      });
    return problems;
  };
  let result: T;
  try {
    for (const s of stacks) {
      await addStackToRecord(options.statePath, { name: s.name });
      const { state, alreadyUp } = await stackUp({
        name: s.name,
        cri: 'containerd',
        daemonBinary: s.daemonBinary,
        fixHost: false,
        extraHandlers: s.extraHandlers,
        subnet: config.stack.subnet,
        images: config.images,
        log: options.log,
      });
      if (!alreadyUp) started.push(s.name);
      const missing = s.handlers.filter((h) => !state.handlers.some((x) => x.name === h));
      if (missing.length > 0)
        throw new RbError(
          'SWEEP_STACK',
          `stack "${s.name}" has no handler ${missing.join(', ')}${alreadyUp ? ' (it was already up)' : ''}`,
          alreadyUp
            ? `runtime-bench stack down --name ${s.name}, then sweep again`
            : 'see the stack log above for why the handler was skipped',
        );
    }
    result = await body();
  } catch (error) {
    // The sweep's own error matters more than a stack that would not go down (logged above).
    await down();
    throw error;
  }
  const problems = await down();
  if (problems.length > 0)
    throw new RbError(
      'SWEEP_STACK',
      `could not take down ${problems.join('; ')}`,
      'runtime-bench stack down --name <stack>',
    );
  return result;
}
