import { describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import { parseSweepSpecs, sweepConfig } from '../../../src/sweep/plan.ts';

describe('sweep specs', () => {
  test('a range', () => {
    expect(parseSweepSpecs(['runc@1.1.5..1.4.3'])).toEqual({
      component: 'runc',
      range: { from: '1.1.5', to: '1.4.3' },
      versions: [],
    });
  });
  test('an explicit list, as words or one comma list', () => {
    const expected = { component: 'runc', range: null, versions: ['1.1.5', '1.2.0'] };
    expect(parseSweepSpecs(['runc@1.1.5', 'runc@1.2.0'])).toEqual(expected);
    expect(parseSweepSpecs(['runc@1.1.5,runc@1.2.0'])).toEqual(expected);
  });
  test.each([
    [[], /nothing to sweep/],
    [['runc@1.1.5'], /at least two versions/],
    [['runc@1.1.5', 'crun@1.19'], /one runtime \(runc\)/],
    [['containerd@1.7.0..2.0.0'], /not an OCI runtime/],
    [['runc@1.1.5', 'runc@1.1.5'], /listed twice/],
    [['runc@1.1.5..1.2.0', 'runc@1.3.0'], /is a range: give it alone/],
    [['runc@latest', 'runc@1.2.0'], /name a version/],
  ])('%j is refused', (args, message) => expect(() => parseSweepSpecs(args)).toThrow(message));
});

describe('the run config of a sweep', () => {
  const handlers = [
    { name: 'runc-1.1.5', binary: '/opt/rb/runc/1.1.5+go1.17.13/bin/runc', kind: 'runc' as const },
    { name: 'runc-1.2.0', binary: '/opt/rb/runc/1.2.0+go1.22.12/bin/runc', kind: 'runc' as const },
  ];
  test('keeps benchmarks and repetitions, measures exactly the sweep handlers on its stack', () => {
    const base = ConfigSchema.parse({
      name: 'nightly',
      benchmarks: ['operations'],
      runs: 10,
      runsPerBenchmark: { 'operations.container.lifecycle': 200 },
      targets: [{ stack: 'default', handlers: ['runc', 'crun'], transport: 'crictl' }],
      stack: { extraHandlers: [{ name: 'old', binary: '/usr/bin/old-runc' }] },
    });
    const config = sweepConfig(base, 'sweep', { handlers });
    expect(config.targets).toEqual([
      {
        stack: 'sweep',
        cri: 'containerd',
        handlers: ['runc-1.1.5', 'runc-1.2.0'],
        transport: 'crictl',
        crictl: 'crictl',
      },
    ]);
    expect(config.stack.extraHandlers).toEqual(handlers);
    expect(config.runsPerBenchmark).toEqual({ 'operations.container.lifecycle': 200 });
    expect(config.name).toBe('nightly');
  });
  test('a kubernetes config is refused', () => {
    const base = ConfigSchema.parse({
      targets: [{ kind: 'kubernetes', runtimeClasses: [{ name: 'runc' }] }],
    });
    expect(() => sweepConfig(base, 'sweep', { handlers })).toThrow(/kubernetes target/);
  });
});
