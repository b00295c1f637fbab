import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import { runsFor } from '@runtime-bench/schemas';
import { BENCHMARKS, selectBenchmarks } from '../../../src/suites/registry.ts';
import { engineKind } from '../../../src/engine/kind.ts';

const example = (name: string): string =>
  join(import.meta.dirname, '..', '..', '..', '..', 'examples', `${name}.yaml`);
const families = (names: string[]): Set<string> => new Set(names.map((n) => n.split('.')[0]!));

describe('example configs', () => {
  test.each(['quick', 'paper', 'full', 'sample', 'sample-all-runtimes', 'nightly'])(
    '%s.yaml is a valid config that selects benchmarks',
    async (name) => {
      const config = await loadConfig(example(name));
      expect(selectBenchmarks(config.benchmarks, config.skip).length).toBeGreaterThan(0);
    },
  );

  test('engines.yaml: Docker, Podman and nerdctl (containerd pinned) × runc, crun, every engine benchmark', async () => {
    const config = await loadConfig(example('engines'));
    expect(
      config.targets.map((t) =>
        t.kind === 'engine'
          ? `${t.engine}:${t.runtimes.join(',')}${t.containerd ? `@${t.containerd}` : ''}`
          : t.kind,
      ),
    ).toEqual(['docker:runc,crun', 'podman:runc,crun', 'nerdctl:runc,crun@1.7.35']);
    expect(engineKind(config, 'engines.yaml')).toBeDefined();
    expect(runsFor(config, 'engine.limits.memory.min')).toBe(6);
    expect(runsFor(config, 'engine.startup.latency')).toBe(10);
  });

  test('quick and full cover every family of the registry', async () => {
    const all = families(BENCHMARKS.map((b) => b.definition.name));
    for (const name of ['quick', 'full']) {
      const config = await loadConfig(example(name));
      expect(
        families(selectBenchmarks(config.benchmarks, config.skip).map((b) => b.definition.name)),
      ).toEqual(all);
    }
  });

  test('nightly.yaml runs the lifecycle calls 200 times (the gate targets need it) and the rest 10', async () => {
    const c = await loadConfig(example('nightly'));
    expect(runsFor(c, 'operations.container.lifecycle')).toBe(200);
    expect(runsFor(c, 'performance.cpu')).toBe(10);
    expect(
      selectBenchmarks(c.benchmarks, c.skip, BENCHMARKS, 'nightly.yaml', Object.keys(c.runsPerBenchmark))
        .length,
    ).toBeGreaterThan(1);
  });

  test("paper.yaml keeps TouchStone's parameters", async () => {
    const c = await loadConfig(example('paper'));
    expect(c.parameters['performance.cpu']).toMatchObject({
      maxPrime: 20000,
      events: 10000,
      modes: ['events'],
    });
    expect(c.parameters['limits.cpu.time']).toMatchObject({ cpuQuotaMicros: 10000, cpuPeriodMicros: 100000 });
    expect(c.parameters['limits.cpu.scaling']).toMatchObject({
      startPercent: 50,
      endPercent: 100,
      rampSeconds: 10,
    });
    expect(selectBenchmarks(c.benchmarks, c.skip).map((b) => b.definition.name)).toEqual(
      expect.arrayContaining(['scalability.runtime.5', 'scalability.runtime.10', 'scalability.runtime.50']),
    );
  });
});
