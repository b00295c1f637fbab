// Whether a limits benchmark's limit was enforced, read from the result itself: the kernel's
// throttling counters and the CPU the container used (limits.cpu.time), or whether any limit made
// the container fail (limits.memory.min). A runtime that ignores a limit finishes "faster" or
// "smaller" without having been limited: its numbers answer another question and are never ranked
// against runtimes that enforced it. Pure.

export type EnforcementState = 'enforced' | 'not enforced' | 'not shown';

export interface Enforcement {
  state: EnforcementState;
  /** in words, with the numbers it was decided on */
  why: string;
}

/** The codes of EnforcementState in the digests (0: not a limits benchmark). */
export const ENFORCEMENT_STATES = [
  'enforced',
  'not enforced',
  'not shown',
] as const satisfies readonly EnforcementState[];

/**
 * How far above the quota the CPU used may be before the quota counts as not enforced: the
 * kernel lets a container overrun a period's quota only by what it ran before the throttle
 * (well under one period per period); 1.5 × the quota is far outside that.
 */
export const CPU_OVERRUN = 1.5;

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The enforcement of one benchmark result, or null for a benchmark that sets no limit.
 * `median` gives the median of a metric's samples (null without samples); `parameters` are the
 * result's own.
 */
export function enforcementOf(
  benchmark: string,
  parameters: Readonly<Record<string, unknown>>,
  median: (metric: string) => number | null,
): Enforcement | null {
  if (benchmark === 'limits.cpu.time') {
    const quota = num(parameters.cpuQuotaMicros);
    const period = num(parameters.cpuPeriodMicros);
    const share = quota !== null && period !== null && period > 0 ? quota / period : null;
    const usage = median('cpu_usage');
    const total = median('total_time');
    const throttled = median('throttled_periods');
    const used = usage !== null && total !== null && total > 0 ? usage / (total * 1000) : null;
    const under = share === null ? '' : ` under a quota of ${pct(share)} of a CPU`;
    if (used !== null && share !== null && used > share * CPU_OVERRUN)
      return { state: 'not enforced', why: `the container used ${pct(used)} of a CPU${under}` };
    if (throttled === 0)
      return {
        state: 'not enforced',
        why: `the kernel throttled the container in none of its CFS periods${under}`,
      };
    if (throttled !== null)
      return {
        state: 'enforced',
        why: `throttled in ${throttled} CFS periods${used !== null ? `, ${pct(used)} of a CPU used` : ''}${under}`,
      };
    return {
      state: 'not shown',
      why: 'the result has no cgroup counters (throttled periods, CPU usage) that would show the quota enforced',
    };
  }
  if (benchmark === 'limits.memory.min') {
    const failed = median('failed_bytes');
    const bytes = median('bytes');
    if (failed === null)
      return {
        state: 'not shown',
        why: 'the result has no failed_bytes: no limit is known to have stopped the container',
      };
    if (failed === 0)
      return {
        state: 'not enforced',
        why: `no memory limit tried made the container fail${bytes !== null ? ` (it ran under ${bytes} bytes)` : ''}: the limit did not constrain it`,
      };
    return { state: 'enforced', why: `the container failed under a limit of ${failed} bytes` };
  }
  return null;
}
