import type { Command } from 'commander';
import { ConfigSchema, type BenchmarkDefinition, type Config } from '@runtime-bench/schemas';
import { ENGINE_BENCHMARKS } from '../engine/benchmarks.ts';
import { KUBERNETES_BENCHMARKS } from '../kubernetes/benchmarks.ts';
import { BENCHMARKS } from '../suites/registry.ts';

/** The target kind a benchmark runs under: each kind has its own benchmarks. */
type Level = 'cri' | 'engine' | 'kubernetes';

interface Listed {
  definition: BenchmarkDefinition;
  parameters?: (config: Config) => object;
}

/** Every benchmark of every target kind, in run order, with the parameters a default config gives it. */
export function listBenchmarks(): (BenchmarkDefinition & { targetKind: Level; parameters: object })[] {
  const defaults = ConfigSchema.parse({});
  const levels: [Level, readonly Listed[]][] = [
    ['cri', BENCHMARKS as readonly Listed[]],
    ['engine', ENGINE_BENCHMARKS as readonly Listed[]],
    ['kubernetes', KUBERNETES_BENCHMARKS],
  ];
  return levels.flatMap(([targetKind, list]) =>
    list.map((b) => ({ ...b.definition, targetKind, parameters: b.parameters?.(defaults) ?? {} })),
  );
}

const HEADINGS: Record<Level, string> = {
  cri: 'CRI targets (containerd, CRI-O; kind: cri)',
  engine: 'engine targets (docker, podman, nerdctl; kind: engine, benchmarks: [engine])',
  kubernetes: 'kubernetes targets (kind: kubernetes, benchmarks: [kubernetes])',
};

export function registerList(program: Command): void {
  program
    .command('list')
    .option('--json', 'machine-readable output')
    .action((opts: { json?: boolean }) => {
      const entries = listBenchmarks();
      if (opts.json) {
        console.log(JSON.stringify(entries, null, 2));
        return;
      }
      let level: Level | null = null;
      for (const e of entries) {
        if (e.targetKind !== level) {
          level = e.targetKind;
          console.log(`## ${HEADINGS[level]}\n`);
        }
        console.log(`${e.name}  [${e.origin.join(', ')}]`);
        console.log(`  ${e.description}`);
        console.log(`  parameters: ${JSON.stringify(e.parameters)}`);
        for (const m of e.metrics)
          console.log(`  - ${m.name} (${m.unit}, ${m.direction} is better): ${m.description}`);
        console.log('');
      }
    });
}
