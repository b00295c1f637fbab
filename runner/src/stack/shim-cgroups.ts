// The shim cgroups of a containerd stack: each runc-shim handler's shims (and the runc/crun/youki
// invocations they wait for, which stay in their parent's cgroup) run in a cgroup of their own,
// /runtime-bench/<stack>/shim-<handler>, named in the handler's `ShimCgroup` option. The kernel
// keeps the CPU time of a cgroup's exited tasks in its usage counter (cpuacct.usage in ns on v1,
// cpu.stat usage_usec on v2), so overhead.runtime can read the helpers' CPU at that resolution
// instead of the shim's cutime/cstime in 10 ms ticks. The naming rule lives here alone: the stack
// creates and removes these cgroups, overhead.runtime recognises them by it.
import { mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cgroupHierarchies } from '../host/parse.ts';

export const SHIM_CGROUP_ROOT = '/runtime-bench';

/** The cgroup of every shim cgroup of one stack (removed with them at stack down). */
export const stackCgroup = (stack: string): string => `${SHIM_CGROUP_ROOT}/${stack}`;

/** The shim cgroup of one handler of one stack, as a path inside a cgroup hierarchy. */
export const shimCgroupPath = (stack: string, handler: string): string =>
  `${stackCgroup(stack)}/shim-${handler}`;

/** Is this cgroup path (from /proc/<pid>/cgroup) a shim cgroup that a stack made? */
export const isShimCgroup = (path: string): boolean => /^\/runtime-bench\/[^/]+\/shim-[^/]+$/.test(path);

/** The hierarchy whose usage counter the shim cgroups are read from. */
export interface UsageHierarchy {
  /** 1: a v1 hierarchy with the cpuacct controller (cpuacct.usage, ns); 2: the unified one (cpu.stat). */
  version: 1 | 2;
  mount: string;
}

/**
 * Where CPU usage is counted, from mountinfo text: the v1 hierarchy carrying cpuacct when there is
 * one (v1 and hybrid hosts: the shim joins v1 cgroups there, containerd's cgroups.Load with a
 * static path skips hierarchies where the path is absent), else the cgroup2 mount (pure v2 hosts,
 * where cpu.stat's usage_usec needs no controller enabled). Null without either.
 */
export function usageHierarchy(mountinfo: string): UsageHierarchy | null {
  const hierarchies = cgroupHierarchies(mountinfo);
  const h =
    hierarchies.find((x) => x.version === 1 && x.controllers.includes('cpuacct')) ??
    hierarchies.find((x) => x.version === 2);
  return h ? { version: h.version, mount: h.mount } : null;
}

/** The nanoseconds of a shim cgroup's usage file: cpuacct.usage (v1, ns) or cpu.stat (v2, µs). */
export function parseCgroupUsageNs(version: 1 | 2, text: string): number {
  if (version === 1) {
    const m = /^\s*(\d+)\s*$/.exec(text);
    if (!m) throw new Error(`not a cpuacct.usage value: ${JSON.stringify(text.slice(0, 40))}`);
    return Number(m[1]);
  }
  const m = /^usage_usec\s+(\d+)\s*$/m.exec(text);
  if (!m) throw new Error(`no usage_usec line in cpu.stat: ${JSON.stringify(text.slice(0, 80))}`);
  return Number(m[1]) * 1000;
}

/** The file holding a cgroup's usage counter in a hierarchy of this version. */
export const usageFile = (version: 1 | 2): string => (version === 1 ? 'cpuacct.usage' : 'cpu.stat');

/**
 * The path of the process's cgroup in the usage hierarchy, from /proc/<pid>/cgroup text: the line
 * whose controllers include cpuacct (v1), or the `0::` line (v2). Null when there is none.
 */
export function cgroupOf(version: 1 | 2, procCgroup: string): string | null {
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (version === 1 && m[2]!.split(',').includes('cpuacct')) return m[3]!;
    if (version === 2 && m[1] === '0' && m[2] === '') return m[3]!;
  }
  return null;
}

/** Creates the shim cgroups (and their parents) in the usage hierarchy. */
export async function createShimCgroups(hierarchy: UsageHierarchy, paths: readonly string[]): Promise<void> {
  for (const p of paths) await mkdir(join(hierarchy.mount, p), { recursive: true });
}

/**
 * Removes a stack's cgroup and the shim cgroups below it (children first), and the common
 * /runtime-bench parent when no other stack uses it. Call once the shims are gone: a cgroup that
 * still holds a process cannot be removed, and is returned as a problem.
 */
export async function removeStackCgroups(hierarchy: UsageHierarchy | null, stack: string): Promise<string[]> {
  if (!hierarchy) return [];
  const dir = join(hierarchy.mount, stackCgroup(stack));
  const problems: string[] = [];
  const remove = async (path: string): Promise<void> => {
    try {
      await rmdir(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') problems.push(`cgroup ${path}: ${code ?? String(error)}`);
    }
  };
  const children = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const c of children) if (c.isDirectory()) await remove(join(dir, c.name));
  await remove(dir);
  // Shared by every stack: removed when it is empty, left alone (ENOTEMPTY/EBUSY) while another uses it.
  await rmdir(join(hierarchy.mount, SHIM_CGROUP_ROOT)).catch(() => undefined);
  return problems;
}
