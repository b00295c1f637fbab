// The container's own CPU accounting from its cgroup, read inside the container right after the
// workload (the runtime mounts the container's cgroup at /sys/fs/cgroup): how often the CFS quota
// throttled it and how much CPU it used. Kernel counters, so independent of how loaded the host is.

/** The shell snippet that prints the counters after a marker line; works on cgroup v1 and v2. */
export const CGROUP_CPU_MARKER = '--- runtime-bench cgroup cpu ---';
export const printCgroupCpu = [
  `echo '${CGROUP_CPU_MARKER}'`,
  // v2: cpu.stat has nr_periods, nr_throttled, throttled_usec and usage_usec.
  'cat /sys/fs/cgroup/cpu.stat 2>/dev/null',
  // v1: cpu.stat has nr_periods, nr_throttled, throttled_time (ns); usage is cpuacct.usage (ns).
  'cat /sys/fs/cgroup/cpu/cpu.stat /sys/fs/cgroup/cpu,cpuacct/cpu.stat 2>/dev/null',
  'for f in /sys/fs/cgroup/cpuacct/cpuacct.usage /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage; do [ -r $f ] && echo usage_nsec $(cat $f); done',
].join('; ');

/** Runs `argv` in the container, then prints its cgroup's CPU counters; exits with argv's status. */
export function withCgroupCpu(argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', `${argv.join(' ')}; s=$?; ${printCgroupCpu}; exit $s`];
}

export interface CgroupCpu {
  periods: number;
  throttledPeriods: number;
  throttledMs: number;
  /** CPU time the cgroup used, or null when the runtime shows no usage counter. */
  usageMs: number | null;
}

/** Splits a container's stdout into the workload's output and the counters printed after it. */
export function splitCgroupCpu(stdout: string): { workload: string; counters: string | null } {
  const at = stdout.lastIndexOf(CGROUP_CPU_MARKER);
  if (at < 0) return { workload: stdout, counters: null };
  return { workload: stdout.slice(0, at), counters: stdout.slice(at + CGROUP_CPU_MARKER.length) };
}

/** The counters from `key value` lines (cgroup v1 or v2 names); throws when the quota counters are absent. */
export function parseCgroupCpu(text: string): CgroupCpu {
  const v = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\s+(\d+)\s*$/.exec(line.trim());
    if (m) v.set(m[1]!, Number(m[2]));
  }
  const periods = v.get('nr_periods');
  const throttled = v.get('nr_throttled');
  // cgroup v2 counts in µs, v1 in ns: the first key present, in milliseconds.
  const inMs = (micros: string, nanos: string): number | undefined => {
    const us = v.get(micros);
    if (us !== undefined) return us / 1000;
    const ns = v.get(nanos);
    return ns === undefined ? undefined : ns / 1e6;
  };
  const throttledMs = inMs('throttled_usec', 'throttled_time');
  if (periods === undefined || throttled === undefined || throttledMs === undefined)
    throw new Error(
      `the container shows no CFS quota counters in its cgroup's cpu.stat (got: ${[...v.keys()].join(', ') || 'nothing'})`,
    );
  const usageMs = inMs('usage_usec', 'usage_nsec') ?? null;
  return { periods, throttledPeriods: throttled, throttledMs, usageMs };
}
