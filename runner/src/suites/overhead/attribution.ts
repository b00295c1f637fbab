/**
 * Pure attribution of runtime overhead: which processes of a /proc snapshot belong to the runtime
 * of one pod (its shim, conmon, runsc sentry and gofer…), and what they cost. No I/O here: the
 * reader in proc.ts produces these shapes from /proc.
 */

/** Linux reports CPU times in clock ticks of USER_HZ, 100 on every architecture we run on. */
export const USER_HZ = 100;

export { parseProcStat, type ProcStat } from '../../util/proc-stat.ts';

export interface ProcEntry {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string[];
  /** Target of /proc/<pid>/ns/pid, e.g. "pid:[4026531836]". */
  pidNs: string;
}

export interface ProcCounters {
  /** CPU time in nanoseconds: the process's own (every thread's schedstat) plus its reaped helpers. */
  cpuNs: number;
  /** The part of cpuNs from reaped children (cutime + cstime), 10 ms ticks in ns. */
  reapedNs: number;
  peakRssBytes: number;
  writeBytes: number;
  writeSyscalls: number;
  ctxSwitches: number;
}

/**
 * The first field of /proc/<pid>/task/<tid>/schedstat: the thread's time on a CPU, in nanoseconds
 * (utime/stime in /proc/<pid>/stat are the same clock rounded to 10 ms ticks).
 */
export function parseSchedstat(text: string): number {
  const m = /^\s*(\d+)(\s|$)/.exec(text);
  const ns = m ? Number(m[1]) : NaN;
  if (!Number.isFinite(ns)) throw new Error(`not a schedstat line: ${text.slice(0, 80)}`);
  return ns;
}

/** Nanoseconds of `ticks` USER_HZ clock ticks. */
export const ticksToNs = (ticks: number): number => (ticks * 1e9) / USER_HZ;

/** VmHWM (peak resident set) and the context switches of one /proc/<pid>[/task/<tid>]/status. */
export function parseProcStatus(text: string): {
  vmHwmBytes: number;
  voluntary: number;
  nonvoluntary: number;
} {
  const num = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return {
    vmHwmBytes: num('VmHWM') * 1024,
    voluntary: num('voluntary_ctxt_switches'),
    nonvoluntary: num('nonvoluntary_ctxt_switches'),
  };
}

/** write_bytes (bytes that reached the block layer) and syscw (write calls) of /proc/<pid>/io. */
export function parseProcIo(text: string): { writeBytes: number; syscw: number } {
  const num = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { writeBytes: num('write_bytes'), syscw: num('syscw') };
}

const RUNTIME_NAME = /(containerd-shim|conmon|runsc|gvisor|^runc$|^crun$|^youki$)/;

/** Is this process, by its program name, part of a container runtime? */
export function isRuntimeProcess(p: Pick<ProcEntry, 'comm' | 'cmdline'>): boolean {
  const argv0 = (p.cmdline[0] ?? '').split('/').pop() ?? '';
  return RUNTIME_NAME.test(argv0) || RUNTIME_NAME.test(p.comm);
}

/**
 * The processes serving one pod: a containerd shim whose command line says `-id <podId>` (and
 * `-address <socket>` when given), or a conmon naming one of `containerIds`. gVisor's shim takes
 * no `-id` (one shim per sandbox and per container): it is recognised by a direct child (runsc,
 * its gofer or sandbox) whose arguments name the pod's or a container's task directory.
 */
export function findRuntimeRoots(
  procs: readonly ProcEntry[],
  podId: string,
  address?: string,
  containerIds: readonly string[] = [],
): number[] {
  const argAfter = (cmd: string[], flag: string): string | undefined => {
    const i = cmd.indexOf(flag);
    return i >= 0 ? cmd[i + 1] : undefined;
  };
  const ids = [podId, ...containerIds];
  const childMentions = (pid: number): boolean =>
    procs.some((c) => c.ppid === pid && c.cmdline.some((arg) => ids.some((id) => arg.includes(`/${id}/`))));
  return procs
    .filter((p) => {
      const argv0 = (p.cmdline[0] ?? '').split('/').pop() ?? '';
      if (argv0.startsWith('containerd-shim')) {
        const addr = argAfter(p.cmdline, '-address');
        if (address && addr && addr !== address.replace(/^unix:\/\//, '')) return false;
        const id = argAfter(p.cmdline, '-id');
        return id === undefined ? childMentions(p.pid) : id === podId;
      }
      if (argv0 === 'conmon') return containerIds.some((id) => p.cmdline.includes(id));
      return false;
    })
    .map((p) => p.pid);
}

/**
 * The runtime's process tree below `roots`. A descendant counts as runtime while it stays in its
 * parent's PID namespace (runc/crun helpers, shim threads) or is itself a runtime program (the
 * runsc sentry and gofer, which gVisor starts in namespaces of their own); a child that enters a
 * new PID namespace and is not a runtime program is the workload (pause, the container's process)
 * and is left out with everything below it. Below a runsc process everything is runtime: the
 * systrap stubs executing the sandboxed program are the sentry's own machinery.
 */
export function runtimeTree(procs: readonly ProcEntry[], roots: readonly number[]): number[] {
  const byParent = new Map<number, ProcEntry[]>();
  for (const p of procs) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const out: number[] = [];
  const visit = (p: ProcEntry, insideRunsc: boolean): void => {
    out.push(p.pid);
    const runsc = insideRunsc || /runsc/.test(p.comm) || /runsc/.test(p.cmdline[0] ?? '');
    for (const child of byParent.get(p.pid) ?? []) {
      if (runsc || child.pidNs === p.pidNs || isRuntimeProcess(child)) visit(child, runsc);
    }
  };
  for (const r of roots) {
    const p = byPid.get(r);
    if (p) visit(p, false);
  }
  return [...new Set(out)];
}

/** Sums the counters of the given processes. */
export function sumCounters(counters: readonly ProcCounters[]): ProcCounters {
  return counters.reduce(
    (a, c) => ({
      cpuNs: a.cpuNs + c.cpuNs,
      reapedNs: a.reapedNs + c.reapedNs,
      peakRssBytes: a.peakRssBytes + c.peakRssBytes,
      writeBytes: a.writeBytes + c.writeBytes,
      writeSyscalls: a.writeSyscalls + c.writeSyscalls,
      ctxSwitches: a.ctxSwitches + c.ctxSwitches,
    }),
    { cpuNs: 0, reapedNs: 0, peakRssBytes: 0, writeBytes: 0, writeSyscalls: 0, ctxSwitches: 0 },
  );
}

/** One reading of the shim cgroup the pod's shim runs in (see stack/shim-cgroups.ts). */
export interface ShimCgroupReading {
  /** The cgroup's path in its hierarchy, e.g. /runtime-bench/<stack>/shim-runc. */
  path: string;
  /** Its usage counter: the CPU of every task while in it, exited ones included (ns). */
  usageNs: number;
  /** The processes in it that are not the pod's runtime (other pods' shims), sorted. */
  otherPids: number[];
  /** Their own CPU (every live thread's schedstat). */
  othersNs: number;
  /** cpuNs of the pod's runtime processes that are not in the cgroup. */
  outsideNs: number;
}

/**
 * The pod's runtime CPU from its shim cgroup, in ns: the cgroup's usage holds the shim and every
 * helper it ran (runc/crun/youki create, start…, exited or not, and `runc init` until it moves
 * into the container's cgroup), so the ticks of reaped children are not needed. Other live
 * processes in the cgroup are the shims of other pods of the same handler; their own CPU is
 * taken out. Only a difference of two readings means something: the usage also holds every
 * exited task since the stack started (earlier pods' shims and helpers), and the shim's CPU from
 * before it joined the cgroup is in its schedstat but not in the usage.
 */
export const cgroupCpuNs = (r: ShimCgroupReading): number => r.usageNs - r.othersNs + r.outsideNs;

/** A reading of the pod's runtime: its processes' counters, and its shim cgroup's when it has one. */
export interface RuntimeReading {
  counters: ProcCounters;
  shimCgroup: ShimCgroupReading | null;
}

/** The resolution cpu_time_start was read at: ns from a shim cgroup, or reaped helpers in ticks. */
export type CpuSource = 'shim-cgroup' | 'ticks';

/**
 * CPU time (ns) between two readings, and where it came from: the shim cgroup when the pod's shim
 * was in the same one at both readings with the same other processes beside it, else the
 * processes' counters (reaped helpers in ticks).
 *
 * Why the cgroup difference is this pod's: between the two readings only this pod's shim is asked
 * to run anything (overhead.runtime runs one pod at a time, and nothing else of the run overlaps
 * it), so every task that started and exited in the cgroup meanwhile is one of its helpers. Other
 * pods' shims of the same handler that are alive at both readings (left from earlier benchmarks)
 * are subtracted with their own CPU. One that exits between the readings (the shim of the pod
 * removed just before, shutting down late) would leave its whole lifetime's CPU in the
 * difference, and one that joins would take out CPU it spent before joining: either way the
 * readings are not comparable, and the ticks are used. What cannot be separated is a helper of a
 * surviving other shim, which only a CRI call on that pod would start.
 */
export function cpuBetween(before: RuntimeReading, after: RuntimeReading): { ns: number; source: CpuSource } {
  const b = before.shimCgroup;
  const a = after.shimCgroup;
  const sameOthers = (x: readonly number[], y: readonly number[]): boolean =>
    x.length === y.length && x.every((pid, i) => pid === y[i]);
  if (b && a && b.path === a.path && sameOthers(b.otherPids, a.otherPids))
    return { ns: Math.max(0, cgroupCpuNs(a) - cgroupCpuNs(b)), source: 'shim-cgroup' };
  return { ns: Math.max(0, after.counters.cpuNs - before.counters.cpuNs), source: 'ticks' };
}

export interface OverheadReadings {
  /** After RunPodSandbox, before CreateContainer. */
  beforeStart: RuntimeReading;
  /** After StartContainer returned. */
  afterStart: RuntimeReading;
  /** After the observation period. */
  end: ProcCounters;
  startSeconds: number;
  processes: number;
}

/**
 * The metrics of overhead.runtime from three readings of the runtime's process tree.
 * cpu_time_total stays on the processes' counters: a shim cgroup's usage is only meaningful as a
 * difference, and there is no reading before the pod's shim exists (see cgroupCpuNs).
 */
export function overheadValues(r: OverheadReadings): Record<string, number> {
  const before = r.beforeStart.counters;
  const after = r.afterStart.counters;
  const writeOps = Math.max(0, after.writeSyscalls - before.writeSyscalls);
  return {
    cpu_time_start: cpuBetween(r.beforeStart, r.afterStart).ns / 1e6,
    cpu_time_total: r.end.cpuNs / 1e6,
    peak_rss: r.end.peakRssBytes,
    write_bytes_start: Math.max(0, after.writeBytes - before.writeBytes),
    write_ops_start: writeOps,
    write_iops_start: r.startSeconds > 0 ? writeOps / r.startSeconds : 0,
    ctx_switches_total: r.end.ctxSwitches,
    processes: r.processes,
  };
}
