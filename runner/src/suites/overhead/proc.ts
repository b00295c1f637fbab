import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cgroupOf,
  isShimCgroup,
  parseCgroupUsageNs,
  usageFile,
  usageHierarchy,
} from '../../stack/shim-cgroups.ts';
import {
  parseProcIo,
  parseProcStat,
  parseSchedstat,
  ticksToNs,
  parseProcStatus,
  type ProcCounters,
  type ProcEntry,
  type ShimCgroupReading,
} from './attribution.ts';

/** Reads a /proc file, or null when the process is gone (it may exit between listing and reading). */
async function maybe<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

/** Every process's parent, name, command line and PID namespace: the input of runtimeTree. */
export async function readProcSnapshot(proc = '/proc'): Promise<ProcEntry[]> {
  const pids = (await readdir(proc)).filter((n) => /^\d+$/.test(n));
  const entries = await Promise.all(
    pids.map(async (pid): Promise<ProcEntry | null> => {
      const stat = await maybe(() => readFile(join(proc, pid, 'stat'), 'utf8'));
      if (!stat) return null;
      const s = parseProcStat(stat);
      const cmdline = (await maybe(() => readFile(join(proc, pid, 'cmdline'), 'utf8'))) ?? '';
      const pidNs = (await maybe(() => readlink(join(proc, pid, 'ns', 'pid')))) ?? '';
      return { pid: s.pid, ppid: s.ppid, comm: s.comm, cmdline: cmdline.split('\0').filter(Boolean), pidNs };
    }),
  );
  return entries.filter((e): e is ProcEntry => e !== null);
}

/** One process's counters; context switches summed over its threads. Null when it is gone. */
export async function readCounters(pid: number, proc = '/proc'): Promise<ProcCounters | null> {
  const dir = join(proc, String(pid));
  const stat = await maybe(() => readFile(join(dir, 'stat'), 'utf8'));
  const status = await maybe(() => readFile(join(dir, 'status'), 'utf8'));
  if (!stat || !status) return null;
  const s = parseProcStat(stat);
  const io = parseProcIo((await maybe(() => readFile(join(dir, 'io'), 'utf8'))) ?? '');
  let ctxSwitches = 0;
  let threadNs = 0;
  let threadsTimed = true;
  for (const tid of (await maybe(() => readdir(join(dir, 'task')))) ?? []) {
    const t = await maybe(() => readFile(join(dir, 'task', tid, 'status'), 'utf8'));
    if (t) {
      const ts = parseProcStatus(t);
      ctxSwitches += ts.voluntary + ts.nonvoluntary;
    }
    const sched = await maybe(() => readFile(join(dir, 'task', tid, 'schedstat'), 'utf8'));
    if (sched) threadNs += parseSchedstat(sched);
    else threadsTimed = false;
  }
  // Own time in ns from the live threads' schedstat; a thread that already exited is only in the
  // tick-rounded total, so the larger of the two is the better reading. Reaped helpers (the
  // runc/crun the shim waited for) exist only as cutime/cstime ticks: the kernel keeps no finer sum.
  const ownNs = threadsTimed ? Math.max(threadNs, ticksToNs(s.ownTicks)) : ticksToNs(s.ownTicks);
  return {
    cpuNs: ownNs + ticksToNs(s.childTicks),
    reapedNs: ticksToNs(s.childTicks),
    peakRssBytes: parseProcStatus(status).vmHwmBytes,
    writeBytes: io.writeBytes,
    writeSyscalls: io.syscw,
    ctxSwitches,
  };
}

/** Every live thread's schedstat of one process, summed (ns); 0 when it is gone. */
async function threadsNs(pid: number, proc: string): Promise<number> {
  const dir = join(proc, String(pid), 'task');
  let ns = 0;
  for (const tid of (await maybe(() => readdir(dir))) ?? []) {
    const sched = await maybe(() => readFile(join(dir, tid, 'schedstat'), 'utf8'));
    if (sched) ns += parseSchedstat(sched);
  }
  return ns;
}

/**
 * The shim cgroup the runtime processes `pids` run in, read (see attribution.ts cgroupCpuNs), or
 * null when none of them is in a shim cgroup a stack made (another containerd, CRI-O, runsc) or
 * they are spread over several: then the caller keeps to the processes' counters.
 * `cpuNs(pid)` gives a tree process's counters for the ones outside the cgroup.
 */
export async function readShimCgroup(
  pids: readonly number[],
  cpuNs: (pid: number) => number,
  proc = '/proc',
): Promise<ShimCgroupReading | null> {
  const hierarchy = usageHierarchy(
    (await maybe(() => readFile(join(proc, 'self', 'mountinfo'), 'utf8'))) ?? '',
  );
  if (!hierarchy) return null;
  const cgroupOfPid = new Map<number, string | null>();
  for (const pid of pids) {
    const text = await maybe(() => readFile(join(proc, String(pid), 'cgroup'), 'utf8'));
    cgroupOfPid.set(pid, text === null ? null : cgroupOf(hierarchy.version, text));
  }
  const shimCgroups = new Set(
    [...cgroupOfPid.values()].filter((p): p is string => p !== null && isShimCgroup(p)),
  );
  if (shimCgroups.size !== 1) return null;
  const [path] = shimCgroups as Set<string>;
  const dir = join(hierarchy.mount, path!);
  const members = ((await maybe(() => readFile(join(dir, 'cgroup.procs'), 'utf8'))) ?? '')
    .split('\n')
    .filter((l) => /^\d+$/.test(l.trim()))
    .map(Number);
  const tree = new Set(pids);
  const otherPids = members.filter((pid) => !tree.has(pid)).sort((x, y) => x - y);
  let othersNs = 0;
  for (const pid of otherPids) othersNs += await threadsNs(pid, proc);
  const usage = await maybe(() => readFile(join(dir, usageFile(hierarchy.version)), 'utf8'));
  if (usage === null) return null;
  const outsideNs = pids.filter((pid) => cgroupOfPid.get(pid) !== path).reduce((a, pid) => a + cpuNs(pid), 0);
  return {
    path: path!,
    usageNs: parseCgroupUsageNs(hierarchy.version, usage),
    otherPids,
    othersNs,
    outsideNs,
  };
}
