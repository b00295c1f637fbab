import { RbError } from '../errors.ts';
import { cpuBenchmark } from './cpu.ts';
import { diskBenchmark } from './disk.ts';
import { lifecycleBenchmark } from './lifecycle.ts';
import { cpuScalingBenchmark, cpuTimeLimitBenchmark } from './limits-cpu.ts';
import { memoryMinBenchmark } from './limits-memory.ts';
import { memoryBenchmark } from './memory.ts';
import { networkBenchmark } from './network.ts';
import { overheadBenchmark } from './overhead/overhead.ts';
import { scalabilityBenchmarks } from './scalability.ts';
import { firstOutputBenchmark, startupLatencyBenchmark } from './startup.ts';
import type { Benchmark } from './types.ts';

/** Every benchmark runtime-bench knows, in the order a run executes them. */
export const BENCHMARKS: Benchmark<never>[] = [
  lifecycleBenchmark,
  cpuBenchmark,
  memoryBenchmark,
  diskBenchmark,
  startupLatencyBenchmark,
  firstOutputBenchmark,
  ...scalabilityBenchmarks,
  cpuTimeLimitBenchmark,
  cpuScalingBenchmark,
  memoryMinBenchmark,
  overheadBenchmark,
  networkBenchmark,
] as unknown as Benchmark<never>[];

/** A prefix matches whole name segments: "performance" selects performance.cpu, "perf" selects nothing. */
export function matchesPrefix(name: string, prefix: string): boolean {
  return name === prefix || name.startsWith(`${prefix}.`);
}

/** The benchmarks a config's `benchmarks` / `skip` prefixes select; a prefix that selects nothing is an error. */
export function selectBenchmarks(
  include: string[],
  skip: string[],
  all: Benchmark<never>[] = BENCHMARKS,
): Benchmark<never>[] {
  include.forEach((prefix, i) => {
    if (!all.some((b) => matchesPrefix(b.definition.name, prefix))) {
      throw new RbError(
        'CONFIG_INVALID',
        `benchmarks[${i}]: "${prefix}" matches no benchmark`,
        `known benchmarks: ${all.map((b) => b.definition.name).join(', ')} (run \`runtime-bench list\`)`,
      );
    }
  });
  return all.filter(
    (b) =>
      include.some((p) => matchesPrefix(b.definition.name, p)) &&
      !skip.some((p) => matchesPrefix(b.definition.name, p)),
  );
}
