// What every stack test asserts at its end: `stack down` succeeded and left no process, mount or
// shim cgroup of the stack behind.
import { expect } from 'vitest';
import { stackCgroup } from '../../src/stack/shim-cgroups.ts';
import { runCli } from './cli.ts';
import { cgroupsNamed, mountsUnder, processesUnder } from './host.ts';

export async function stackDownLeavesNothing(stack: string): Promise<void> {
  const stateDir = `/var/lib/runtime-bench/stacks/${stack}`;
  const down = await runCli(['stack', 'down', '--name', stack]);
  expect(down.code, down.stderr).toBe(0);
  expect(processesUnder(stateDir)).toEqual([]);
  expect(mountsUnder(stateDir)).toEqual([]);
  expect(cgroupsNamed(stackCgroup(stack))).toEqual([]);
}
