// The headline of each benchmark family: the one metric that answers "is this runtime better or
// worse at it than runc", and how to say it in a sentence. The end-of-run verdict prints one line
// per family and runtime from these; the full table stays in the result file (`run --table`).
// Pure data: no suite module is imported, so reading it loads nothing else.

export interface Headline {
  /** The benchmark family, the first segment of the benchmark names it covers. */
  family: string;
  benchmark: string;
  metric: string;
  /**
   * The sentence of a significant difference: {candidate} and {baseline} are target ids, {change}
   * becomes e.g. "34 % faster" (the size of the difference and `better` or `worse`).
   */
  says: string;
  /** The word for a difference the good way for the metric's direction ("faster", "less"). */
  better: string;
  /** The word for a difference the bad way ("slower", "more"). */
  worse: string;
}

const faster = { better: 'faster', worse: 'slower' };

/**
 * Per family, its candidates in order of preference: a run's headline for a family is the first
 * candidate it measured (a config may select performance.disk alone, or parallel mode only).
 */
export const HEADLINES: readonly Headline[] = [
  {
    family: 'operations',
    benchmark: 'operations.container.lifecycle',
    metric: 'create-and-run',
    says: '{candidate} creates and starts a container {change} than {baseline}',
    ...faster,
  },
  {
    family: 'startup',
    benchmark: 'startup.latency',
    metric: 'latency_median',
    says: '{candidate} runs a short-lived container (create to exit) {change} than {baseline}',
    ...faster,
  },
  {
    family: 'startup',
    benchmark: 'startup.first-output',
    metric: 'small_to_output',
    says: '{candidate} gets a container to its first output {change} than {baseline}',
    ...faster,
  },
  {
    family: 'performance',
    benchmark: 'performance.cpu',
    metric: 'events_per_second',
    says: '{candidate} computes (sysbench cpu) {change} than {baseline}',
    ...faster,
  },
  {
    family: 'performance',
    benchmark: 'performance.memory',
    metric: 'mib_per_second',
    says: '{candidate} moves memory (sysbench memory) {change} than {baseline}',
    ...faster,
  },
  {
    family: 'performance',
    benchmark: 'performance.disk',
    metric: 'seqwr_mib_per_second',
    says: '{candidate} writes files (sysbench fileio seqwr) {change} than {baseline}',
    ...faster,
  },
  ...[10, 50, 5].flatMap((n) =>
    (['parallel', 'serial'] as const).map((mode) => ({
      family: 'scalability',
      benchmark: `scalability.runtime.${n}`,
      metric: `${mode}_start_all`,
      says: `{candidate} starts ${n} containers ${mode === 'parallel' ? 'at once' : 'one after the other'} {change} than {baseline}`,
      ...faster,
    })),
  ),
  {
    family: 'limits',
    benchmark: 'limits.memory.min',
    metric: 'bytes',
    says: '{candidate} needs {change} memory than {baseline} to start a container',
    better: 'less',
    worse: 'more',
  },
  {
    family: 'limits',
    benchmark: 'limits.cpu.time',
    metric: 'total_time',
    says: '{candidate} finishes a CPU-limited job {change} than {baseline}',
    ...faster,
  },
  {
    family: 'overhead',
    benchmark: 'overhead.runtime',
    metric: 'cpu_time_start',
    says: '{candidate} spends {change} CPU time than {baseline} on starting a container',
    better: 'less',
    worse: 'more',
  },
  {
    family: 'network',
    benchmark: 'network.throughput',
    metric: 'host_to_pod',
    says: '{candidate} receives data from the host {change} than {baseline}',
    ...faster,
  },
];
