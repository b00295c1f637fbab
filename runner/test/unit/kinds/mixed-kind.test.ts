// CRI and engine targets in one config: the selection split between the two kinds, and the
// combined kind through the one pipeline (plain fake kinds: their order, one document, close).
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  ConfigSchema,
  RunResultSchema,
  runsFor,
  type BenchmarkDefinition,
  type HostFingerprint,
} from '@runtime-bench/schemas';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { ENGINE_COUNTERPARTS } from '../../../src/overhead/counterparts.ts';
import { combineKinds, criPartOf } from '../../../src/kinds/mixed-kind.ts';
import { targetKindOf } from '../../../src/kinds/registry.ts';
import { newSlot } from '../../../src/run/orchestrate.ts';
import { runPipeline, type TargetKind } from '../../../src/run/pipeline.ts';
import { EndpointDead } from '../../../src/run/stop.ts';

const TARGETS = [
  { stack: 'default', handlers: ['runc'] },
  { kind: 'engine', engine: 'docker', runtimes: ['runc'] },
];

describe('the selection of a mixed config', () => {
  test('examples/engine-overhead.yaml: CRI and engine targets, every engine benchmark with its CRI-level counterpart', async () => {
    const file = join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'engine-overhead.yaml');
    const config = await loadConfig(file);
    expect(targetKindOf(config, file)).toBeDefined();
    const cri = criPartOf(config, file).benchmarks;
    for (const c of ENGINE_COUNTERPARTS) {
      expect(config.benchmarks).toContain(c.upper);
      expect(cri).toContain(c.cri);
      expect(runsFor(config, c.upper)).toBe(runsFor(config, c.cri));
    }
  });
  test('the CRI kind gets the prefixes naming CRI-level benchmarks; engine.* stay with the engine kind', () => {
    const config = ConfigSchema.parse({
      targets: TARGETS,
      benchmarks: ['startup.latency', 'engine.startup.latency'],
      skip: ['engine.limits'],
      runsPerBenchmark: { 'engine.startup.latency': 4, 'startup.latency': 3 },
    });
    const part = criPartOf(config, 'm.yaml');
    expect(part.benchmarks).toEqual(['startup.latency']);
    expect(part.skip).toEqual([]);
    expect(part.runsPerBenchmark).toEqual({ 'startup.latency': 3 });
    expect(targetKindOf(config, 'm.yaml')).toBeDefined();
  });
  test('a prefix naming no benchmark of either level is an error naming the field', () => {
    const config = ConfigSchema.parse({ targets: TARGETS, benchmarks: ['startup', 'engine.nope'] });
    expect(() => targetKindOf(config, 'm.yaml')).toThrow(
      /m\.yaml: benchmarks\[1\]: "engine\.nope" matches no benchmark/,
    );
    const runs = ConfigSchema.parse({
      targets: TARGETS,
      benchmarks: ['startup', 'engine'],
      runsPerBenchmark: { enigne: 3 },
    });
    expect(() => targetKindOf(runs, 'm.yaml')).toThrow(/runsPerBenchmark: "enigne" matches no benchmark/);
  });
  test('CRI targets with only engine benchmarks, or engine targets with only CRI ones, are refused', () => {
    const onlyEngine = ConfigSchema.parse({ targets: TARGETS, benchmarks: ['engine'] });
    expect(() => targetKindOf(onlyEngine, 'm.yaml')).toThrow(
      /selects no CRI-level benchmark for the 1 CRI target/,
    );
    const onlyCri = ConfigSchema.parse({ targets: TARGETS, benchmarks: ['startup'] });
    expect(() => targetKindOf(onlyCri, 'm.yaml')).toThrow(/selects no benchmark an engine target runs/);
  });
});

const host = (fixes: string[]): HostFingerprint => ({
  ...sampleRunResult().host,
  hostFixes: fixes.map((id) => ({ id, condition: id, action: id, applied: true })),
});
const def = (name: string): BenchmarkDefinition => ({
  name,
  description: 'fake',
  origin: [],
  metrics: [{ name: 'latency_median', unit: 'ms', direction: 'lower', description: 'x' }],
});

/** A kind of one target running `benchmarks`; logs its calls and life cycle to `log`. */
function fake(
  name: string,
  transport: 'grpc' | 'engine',
  benchmarks: string[],
  log: string[],
  opts: { failPrepare?: boolean; dieAt?: number } = {},
): TargetKind {
  return {
    async prepare(ctx) {
      if (opts.failPrepare) throw new Error(`${name} cannot start`);
      log.push(`prepare ${name}`);
      const died = new AbortController();
      let calls = 0;
      const target = `${name}/runc`;
      return {
        slots: benchmarks.map((b) =>
          newSlot(def(b), target, {}, async ({ index }) => {
            log.push(`${b} ${target} #${index}`);
            if (++calls === opts.dieAt) died.abort(new EndpointDead(`${name} died`));
            return { values: { latency_median: 1 + index }, errors: {} };
          }),
        ),
        signal: AbortSignal.any([ctx.signal, died.signal]),
        async finish() {
          log.push(`finish ${name}`);
          return [
            {
              host: host(transport === 'grpc' ? ['restrict-oom-score-adj'] : []),
              components: [{ name: 'runc', role: 'oci' as const, version: '1.1.5' }],
              targets: [
                {
                  id: target,
                  cri: {
                    name,
                    version: '1',
                    apiVersion: transport === 'engine' ? 'engine' : 'v1',
                    endpoint: 'x',
                  },
                  handler: 'runc',
                  oci: { name: 'runc', version: '1.1.5', path: null },
                  transport,
                },
              ],
              benchmarks: benchmarks.map(def),
              slots: [],
            },
          ];
        },
        async close() {
          log.push(`close ${name}`);
        },
      };
    },
  };
}

const config = ConfigSchema.parse({ runs: 2, warmup: 0, settleSeconds: 0 });
const pipeline = (kind: TargetKind) =>
  runPipeline(kind, {
    config,
    signal: new AbortController().signal,
    onProgress: () => undefined,
    log: () => undefined,
  });

describe('combineKinds through the pipeline', () => {
  test('one document with both kinds’ targets, engine benchmarks interleaved with their CRI counterparts', async () => {
    const log: string[] = [];
    const { results, stop } = await pipeline(
      combineKinds([
        fake('containerd', 'grpc', ['startup.latency', 'limits.cpu.fake'], log),
        fake('docker', 'engine', ['engine.startup.latency', 'engine.limits.memory.min'], log),
      ]),
    );
    expect(stop).toBeNull();
    expect(results).toHaveLength(1);
    const run = RunResultSchema.parse(results[0]);
    expect(run.targets.map((t) => `${t.id}:${t.transport}`)).toEqual([
      'containerd/runc:grpc',
      'docker/runc:engine',
    ]);
    expect(run.host.hostFixes.map((f) => f.id)).toEqual(['restrict-oom-score-adj']);
    expect(run.components).toHaveLength(1); // the same runc, once
    expect(log).toEqual([
      'prepare containerd',
      'prepare docker',
      'startup.latency containerd/runc #0',
      'engine.startup.latency docker/runc #0',
      'startup.latency containerd/runc #1',
      'engine.startup.latency docker/runc #1',
      'limits.cpu.fake containerd/runc #0',
      'limits.cpu.fake containerd/runc #1',
      // limits.memory.min is not selected: its engine counterpart runs in a block of its own
      'engine.limits.memory.min docker/runc #0',
      'engine.limits.memory.min docker/runc #1',
      'finish containerd',
      'finish docker',
      'close docker',
      'close containerd',
    ]);
  });
  test('a kind that cannot prepare closes the ones prepared before it', async () => {
    const log: string[] = [];
    await expect(
      pipeline(
        combineKinds([
          fake('containerd', 'grpc', ['startup.latency'], log),
          fake('docker', 'engine', ['engine.startup.latency'], log, { failPrepare: true }),
        ]),
      ),
    ).rejects.toThrow(/docker cannot start/);
    expect(log).toEqual(['prepare containerd', 'close containerd']);
  });
  test('a dead CRI endpoint stops the engine slots too: an incomplete document, exit cause kept', async () => {
    const log: string[] = [];
    const { results, stop } = await pipeline(
      combineKinds([
        fake('containerd', 'grpc', ['startup.latency'], log, { dieAt: 1 }),
        fake('docker', 'engine', ['engine.startup.latency'], log),
      ]),
    );
    expect(stop).toEqual({ kind: 'endpoint-dead', cause: 'containerd died' });
    expect(results[0]!.status).toBe('incomplete');
    expect(log.filter((l) => l.includes(' #'))).toEqual(['startup.latency containerd/runc #0']);
  });
});
