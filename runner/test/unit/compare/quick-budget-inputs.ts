// The inputs of examples/quick.yaml's repetitions (compare/repetition-budget.ts), each from the
// committed runs of the 2-core test VM in data/ (docs/quick-budget.md has the arithmetic):
// - logSpread: `runtime-bench plan` over data/ (planSampleSizes' sigmaWithin of the headline
//   metric), the median over the runc and crun series, to two digits; 0 where the samples do not
//   vary (limits.memory.min bytes on a 64 KiB grid, overhead.runtime cpu_time_start in 10 ms ticks).
// - secondsPerRepetition: p + the benchmark's own work, with p = 0.25 s the pod of a repetition
//   (lifecycle create-and-run 135 ms + destroy 118 ms, runc, 20261121T092404Z-4217ee53; the
//   lifecycle-only runs 20261127T06*: 135–179 s for 3 targets × 201 repetitions, 0.22–0.30 s) and
//   c = 0.085 s a short-lived container (startup.latency total_time 2.53 s / 30, same run).
import type { BudgetedBenchmark, BudgetOptions } from '../../../src/compare/repetition-budget.ts';

export const QUICK_HEADLINES: readonly BudgetedBenchmark[] = [
  // p
  { benchmark: 'operations.container.lifecycle', secondsPerRepetition: 0.25, logSpread: 0.15 },
  // p + 30 c (count 30)
  { benchmark: 'startup.latency', secondsPerRepetition: 2.8, logSpread: 0.029 },
  // p + 2 s of sysbench (modes [time], timeSeconds 2) + c
  { benchmark: 'performance.cpu', secondsPerRepetition: 2.4, logSpread: 0.046 },
  // parallel_start_all 0.82 s + parallel_destroy_all 0.64 s (modes [parallel]; pods included)
  { benchmark: 'scalability.runtime.10', secondsPerRepetition: 1.5, logSpread: 0.027 },
  // p + 11 attempts × c (64 MiB bisected to 64 KiB: attempts = 11 in the runs)
  { benchmark: 'limits.memory.min', secondsPerRepetition: 1.2, logSpread: 0 },
  // p + observeSeconds 1 + /proc reads ≈ c
  { benchmark: 'overhead.runtime', secondsPerRepetition: 1.4, logSpread: 0 },
  // p + 256 MiB at host_to_pod 817 MiB/s + the listener ≈ c (directions [host-to-pod])
  { benchmark: 'network.throughput', secondsPerRepetition: 0.65, logSpread: 0.018 },
];

export const QUICK_BUDGET: BudgetOptions & { budgetSeconds: number; fixedBenchmarks: readonly string[] } = {
  budgetSeconds: 180,
  // runc and crun: what scripts/setup.sh installs on a fresh Debian 12.
  targets: 2,
  warmup: 1,
  // image.pull, once per endpoint: 2 compressions × ≈ 1 s (a 4 MiB pull, remove and the cold
  // checks: no committed run has the small image, an estimate) × (3 runs + 1 warm-up), plus
  // building and pushing the two images once.
  fixedSeconds: 10,
  fixedBenchmarks: ['image.pull'],
};
