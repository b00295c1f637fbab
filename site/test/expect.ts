// Expectations for the browser test, computed straight from the raw result files — never through
// the site's own aggregation — and a parser that reads a displayed value ("2.5 MiB", "412 µs")
// back into a number, so the test checks the value rather than the formatter's spelling.
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';

/** The median of raw samples, by sorting: the textbook definition, independent of the stats module. */
export function plainMedian(samples: readonly number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

// Every displayed unit in a common base per dimension (seconds, bytes, MiB/s, plain).
const BASE: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  ms: 1e-3,
  s: 1,
  B: 1,
  bytes: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
  'KiB/s': 1 / 1024,
  'MiB/s': 1,
  'GiB/s': 1024,
  'events/s': 1,
  IOPS: 1,
  count: 1,
  ratio: 1,
  '': 1,
};

/** A value in a schema unit, in the common base of its dimension. */
export function toBase(value: number, unit: string): number {
  const f = BASE[unit];
  if (f === undefined) throw new Error(`no base for unit "${unit}"`);
  return value * f;
}

/** Reads "2.5 MiB", "-5 ms", "1.235e-5 s", "12" back into the common base; null if not a value. */
export function parseShown(text: string): number | null {
  const m = /^\s*([-−]?[\d.]+(?:e[-+]?\d+)?)\s*([^\s(]*)/.exec(text);
  if (!m) return null;
  const f = BASE[m[2]!];
  if (f === undefined) return null;
  return Number(m[1]!.replace('−', '-')) * f;
}

/** Whether a shown value equals an expected one to the 4 significant digits shown. */
export function sameToShownPrecision(shown: number, expected: number, digits = 4): boolean {
  if (expected === 0) return shown === 0;
  return Math.abs(shown - expected) <= Math.abs(expected) * 0.5 * 10 ** (1 - digits) * 1.0001;
}

export interface Loaded {
  run: RunResult;
  file: string;
}

/** Per host class (label) and target id, the newest run that has that target. */
export function newestPerHostAndTarget(runs: readonly Loaded[]): Map<string, Map<string, RunResult>> {
  const out = new Map<string, Map<string, RunResult>>();
  for (const { run } of runs) {
    const host = hostClassOf(run.host);
    const byTarget = out.get(host) ?? new Map<string, RunResult>();
    for (const t of run.targets) {
      const prev = byTarget.get(t.id);
      // runs come in load order (start time, then run id): of equal start times — the per-node
      // files of one cluster run — the later one wins, as in the site's matrix
      if (!prev || Date.parse(run.startedAt) >= Date.parse(prev.startedAt)) byTarget.set(t.id, run);
    }
    out.set(host, byTarget);
  }
  return out;
}

/** The samples of one benchmark × metric × target of a run (empty when absent). */
export function samplesOf(run: RunResult, target: string, benchmark: string, metric: string): number[] {
  const r = run.results.find((x) => x.target === target && x.benchmark === benchmark);
  return [...(r?.metrics.find((m) => m.name === metric)?.samples ?? [])];
}

/** Benchmark parameters as one string whatever their key order: equal strings, equal parameters. */
export function parameterKey(parameters: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.keys(parameters)
      .sort()
      .map((k) => [k, parameters[k]]),
  );
}

/**
 * Whether a limits.cpu.time result shows its CFS quota enforced, from its own counters: the
 * kernel throttled the container in some period and it used at most 1.5 × its quota of a CPU.
 * null: the result has no counters to tell.
 */
export function quotaEnforced(result: RunResult['results'][number]): boolean | null {
  const med = (name: string) => {
    const s = result.metrics.find((m) => m.name === name)?.samples ?? [];
    return s.length > 0 ? plainMedian(s) : null;
  };
  const throttled = med('throttled_periods');
  const usage = med('cpu_usage');
  const total = med('total_time');
  if (throttled === null || usage === null || total === null) return null;
  const p = result.parameters as { cpuQuotaMicros: number; cpuPeriodMicros: number };
  return throttled > 0 && usage / (total * 1000) <= 1.5 * (p.cpuQuotaMicros / p.cpuPeriodMicros);
}

/** Whether two targets measured the same thing: CRI runtime, runtime handler and OCI runtime. */
export function sameMeasured(a: RunResult['targets'][number], b: RunResult['targets'][number]): boolean {
  return a.cri.name === b.cri.name && a.handler === b.handler && a.oci.name === b.oci.name;
}

/**
 * The run a matrix row ranks its cells in: the run most of its comparable cells come from, on a
 * tie the newest (a run id starts with its UTC start time, so the newest sorts last).
 */
export function rankedRun(runIds: readonly string[]): string | undefined {
  const count = new Map<string, number>();
  for (const id of runIds) count.set(id, (count.get(id) ?? 0) + 1);
  return [...count].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1))[0]?.[0];
}
