// `runtime-bench list`: every target kind's benchmarks, each once, under its kind, with the
// parameters a default config gives it.
import { expect, test } from 'vitest';
import { listBenchmarks } from '../../src/commands/list.ts';

test('CRI, engine and Kubernetes benchmarks, each once, grouped by target kind in run order', () => {
  const entries = listBenchmarks();
  const names = entries.map((e) => e.name);
  expect(new Set(names).size).toBe(names.length);
  const kinds = entries.map((e) => e.targetKind);
  // Grouped: the kinds appear as three runs, CRI first.
  expect(kinds.filter((k, i) => k !== kinds[i - 1])).toEqual(['cri', 'engine', 'kubernetes']);
  const engine = entries.filter((e) => e.targetKind === 'engine');
  expect(engine.map((e) => e.name)).toEqual([
    'engine.startup.latency',
    'engine.startup.first-output',
    'engine.limits.memory.min',
    'engine.network.throughput',
  ]);
  // The engine benchmarks run with their CRI counterparts' parameters (defaults from the schema).
  expect(engine[0]!.parameters).toMatchObject({ count: 1000, command: ['/bin/true'] });
  expect(entries.find((e) => e.name === 'startup.latency')!.parameters).toEqual(engine[0]!.parameters);
  expect(entries.filter((e) => e.targetKind === 'cri').every((e) => !e.name.startsWith('engine.'))).toBe(
    true,
  );
});
