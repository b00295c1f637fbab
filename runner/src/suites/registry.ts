import { RbError } from '../errors.ts';
import { didYouMean, dottedPrefixes } from '../util/did-you-mean.ts';
import { cpuBenchmark } from './cpu.ts';
import { diskBenchmark } from './disk.ts';
import { imageBenchmarks } from './image.ts';
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
  ...imageBenchmarks,
] as unknown as Benchmark<never>[];

/**
 * The hint for a benchmark name or prefix that matches nothing: the closest names when one is
 * close (a typo), else `otherwise` (what a name looks like, the whole list).
 */
export function unknownBenchmarkHint(word: string, names: readonly string[], otherwise: string): string {
  const guess = didYouMean(word, dottedPrefixes(names));
  return `${guess ?? otherwise} (every benchmark: \`runtime-bench list\`)`;
}

/** A prefix matches whole name segments: "performance" selects performance.cpu, "perf" selects nothing. */
export function matchesPrefix(name: string, prefix: string): boolean {
  return name === prefix || name.startsWith(`${prefix}.`);
}

/**
 * The benchmarks a config's `benchmarks` / `skip` prefixes select. A prefix in either list that
 * matches no benchmark (a typo would otherwise be ignored) and a selection that `skip` empties
 * are errors naming `where` (the config file) and the field.
 */
export function selectBenchmarks(
  include: string[],
  skip: string[],
  all: Benchmark<never>[] = BENCHMARKS,
  where = 'config',
  runPrefixes: readonly string[] = [],
): Benchmark<never>[] {
  const names = all.map((b) => b.definition.name);
  const families = [...new Set(names.map((n) => n.slice(0, n.indexOf('.'))))];
  for (const [field, prefixes] of [
    ['benchmarks', include],
    ['skip', skip],
  ] as const) {
    prefixes.forEach((prefix, i) => {
      if (!names.some((name) => matchesPrefix(name, prefix))) {
        throw new RbError(
          'CONFIG_INVALID',
          `${where}: ${field}[${i}]: "${prefix}" matches no benchmark`,
          unknownBenchmarkHint(
            prefix,
            names,
            `a prefix is a leading part of a name, e.g. ${families.join(', ')}; known benchmarks: ${names.join(', ')}`,
          ),
        );
      }
    });
  }
  // runsPerBenchmark keys: a typo would silently leave a benchmark at the default runs.
  for (const prefix of runPrefixes)
    if (!names.some((name) => matchesPrefix(name, prefix)))
      throw new RbError(
        'CONFIG_INVALID',
        `${where}: runsPerBenchmark: "${prefix}" matches no benchmark`,
        unknownBenchmarkHint(
          prefix,
          names,
          `a key is a benchmark name or a leading part of one, e.g. operations.container.lifecycle; known benchmarks: ${names.join(', ')}`,
        ),
      );
  const selected = all.filter(
    (b) =>
      include.some((p) => matchesPrefix(b.definition.name, p)) &&
      !skip.some((p) => matchesPrefix(b.definition.name, p)),
  );
  if (selected.length === 0)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: skip: [${skip.join(', ')}] removes every benchmark that benchmarks: [${include.join(', ')}] selects`,
      'drop entries from skip or add prefixes to benchmarks; a run must measure something',
    );
  return selected;
}

/**
 * The benchmarks of a target kind with their own registry (kubernetes.*, engine.*) that the
 * config's `benchmarks` and `skip` prefixes select; none selected is an error naming `where`.
 */
export function selectOfKind<B extends { definition: { name: string } }>(
  all: readonly B[],
  config: { benchmarks: readonly string[]; skip: readonly string[] },
  where: string,
  kind: string,
): B[] {
  const selected = all.filter(
    ({ definition: b }) =>
      config.benchmarks.some((p) => matchesPrefix(b.name, p)) &&
      !config.skip.some((p) => matchesPrefix(b.name, p)),
  );
  if (selected.length === 0)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: benchmarks: [${config.benchmarks.join(', ')}] selects no benchmark a${/^[aeiou]/.test(kind) ? 'n' : ''} ${kind} target runs`,
      `a${/^[aeiou]/.test(kind) ? 'n' : ''} ${kind} target runs ${all.map((b) => b.definition.name).join(', ')}: set benchmarks: [${kind}] or some of these`,
    );
  return selected;
}
