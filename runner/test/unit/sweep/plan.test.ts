import { describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import type { RbError } from '../../../src/errors.ts';
import { criSweepConfig, parseSweepSpecs, sweepConfig, sweepStacks } from '../../../src/sweep/plan.ts';

describe('sweep specs', () => {
  test('a range', () => {
    expect(parseSweepSpecs(['runc@1.1.5..1.4.3'])).toEqual({
      component: 'runc',
      kind: 'oci',
      range: { from: '1.1.5', to: '1.4.3' },
      versions: [],
    });
  });
  test('an explicit list, as words or one comma list', () => {
    const expected = { component: 'runc', kind: 'oci', range: null, versions: ['1.1.5', '1.2.0'] };
    expect(parseSweepSpecs(['runc@1.1.5', 'runc@1.2.0'])).toEqual(expected);
    expect(parseSweepSpecs(['runc@1.1.5,runc@1.2.0'])).toEqual(expected);
  });
  test.each([
    [[], /nothing to sweep/],
    [['runc@1.1.5'], /at least two versions/],
    [['runc@1.1.5', 'crun@1.19'], /one runtime \(runc\)/],
    [['crictl@1.30.0', 'crictl@1.31.0'], /crictl is not a runtime/],
    [['cri-o@1.35.0', 'cri-o@1.36.3'], /CRI-O versions cannot be installed/],
    [['runc@1.1.5', 'runc@1.1.5'], /listed twice/],
    [['runc@1.1.5..1.2.0', 'runc@1.3.0'], /is a range: give it alone/],
    [['runc@latest', 'runc@1.2.0'], /name a version/],
  ])('%j is refused', (args, message) => expect(() => parseSweepSpecs(args)).toThrow(message));

  test.each([
    ['runc@1.1.5-1.4.3', 'runc@1.1.5..1.4.3'],
    ['containerd@v1.7.35-v2.0.14', 'containerd@1.7.35..2.0.14'],
  ])('%s, a range misspelt, gets the hint %s', (arg, range) => {
    let hint: string | undefined;
    try {
      parseSweepSpecs([arg]);
    } catch (error) {
      hint = (error as RbError).hint;
    }
    expect(hint).toBe(`a range is written with "..": ${range}`);
  });

  test('one version alone: the hint shows both a list and a range', () => {
    expect(() => parseSweepSpecs(['runc@1.2.0'])).toThrow(
      expect.objectContaining({ hint: 'e.g. runc@1.1.5 runc@1.2.0, or a range: runc@1.1.5..1.4.3' }),
    );
  });
});

describe('a containerd sweep', () => {
  test('is a CRI sweep: one stack per version', () => {
    expect(parseSweepSpecs(['containerd@1.7.35', 'containerd@2.0.14'])).toEqual({
      component: 'containerd',
      kind: 'cri',
      range: null,
      versions: ['1.7.35', '2.0.14'],
    });
    expect(parseSweepSpecs(['containerd@2.0.13..2.4.2']).kind).toBe('cri');
  });
  const daemons = [
    { version: '1.7.35', binary: '/opt/rb/containerd/1.7.35+go1.25.14/bin/containerd' },
    { version: '2.0.14', binary: '/opt/rb/containerd/2.0.14+go1.25.14/bin/containerd' },
  ];
  test('stacks named by version under the prefix; a name too long for a stack is refused', () => {
    expect(sweepStacks('sweep', daemons).map((s) => s.name)).toEqual(['sweep-1-7-35', 'sweep-2-0-14']);
    expect(() => sweepStacks('a-very-long-sweep-prefix-name', daemons)).toThrow(/longer than 31/);
  });
  test('one target per stack, the same handler on each, in the order given', () => {
    const base = ConfigSchema.parse({
      benchmarks: ['operations.container.lifecycle'],
      runsPerBenchmark: { 'operations.container.lifecycle': 200 },
    });
    const config = criSweepConfig(base, sweepStacks('sw', daemons), 'runc');
    expect(config.targets).toEqual([
      {
        name: 'containerd-1.7.35',
        stack: 'sw-1-7-35',
        cri: 'containerd',
        handlers: ['runc'],
        transport: 'grpc',
        crictl: 'crictl',
      },
      {
        name: 'containerd-2.0.14',
        stack: 'sw-2-0-14',
        cri: 'containerd',
        handlers: ['runc'],
        transport: 'grpc',
        crictl: 'crictl',
      },
    ]);
    expect(config.runsPerBenchmark).toEqual({ 'operations.container.lifecycle': 200 });
  });
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
