import { describe, expect, test } from 'vitest';
import { readInputs } from '../src/inputs.ts';
import { buildSweepBaseConfig, sweepArgs, sweepMode } from '../src/sweep.ts';

const files = { config: '/w/config.yaml', out: '/w/result.json', state: '/w/install.json' };

describe('sweep mode', () => {
  test('off without the sweep input; refused beside a kubeconfig', () => {
    expect(sweepMode(readInputs({}))).toBe(false);
    expect(sweepMode(readInputs({ INPUT_SWEEP: 'runc@1.1.5..1.4.3' }))).toBe(true);
    expect(() => sweepMode(readInputs({ INPUT_SWEEP: 'runc@1.1.5..1.4.3', INPUT_KUBECONFIG: 'x' }))).toThrow(
      /sweep and kubeconfig/,
    );
  });
  test('every version is one argument, the record and result in the work directory', () => {
    const inputs = readInputs({
      INPUT_SWEEP: 'containerd@1.7.35, containerd@2.0.14\ncontainerd@2.4.2',
      INPUT_SOURCE: 'go',
      'INPUT_STACK-NAME': 'ci',
    });
    expect(sweepArgs(inputs, files)).toEqual([
      'sweep',
      'containerd@1.7.35',
      'containerd@2.0.14',
      'containerd@2.4.2',
      '--source',
      'go',
      '--prefix',
      '/opt/runtime-bench',
      '--stack',
      'ci',
      '--config',
      '/w/config.yaml',
      '--state',
      '/w/install.json',
      '--out',
      '/w/result.json',
    ]);
    // Without a source, a sweep takes its versions from the Go module proxy, which lists them.
    const plain = sweepArgs(readInputs({ INPUT_SWEEP: 'runc@1.1.5..1.4.3' }), files);
    expect(plain.slice(plain.indexOf('--source'), plain.indexOf('--source') + 2)).toEqual(['--source', 'go']);
  });
  test.each([
    ['runc@1.1.5;rm runc@1.2.0', /sweep: "runc@1\.1\.5;rm": "1\.1\.5;rm" is not a version/],
    // Each word becomes an argument of `runtime-bench sweep`: none may pass for one of its flags.
    ['runc@1.1.5 runc@1.2.0 --containerd /tmp/x', /sweep: "--containerd": unknown component/],
    ['runc@1.1.5', /sweep: a sweep compares at least two versions/],
    ['runc@latest runc@1.2.0', /sweep: "runc@latest": name a version/],
  ])('sweep %j is refused when the inputs are read, naming the word', (sweep, message) => {
    expect(() => readInputs({ INPUT_SWEEP: sweep })).toThrow(message);
  });
  test("the config keeps the user's benchmarks with the shortcuts; its targets are the sweep's", () => {
    const inputs = readInputs({ INPUT_SWEEP: 'runc@1.1.5 runc@1.2.0', INPUT_RUNS: '12' });
    const config = buildSweepBaseConfig(
      { benchmarks: ['operations.container.lifecycle'], targets: [{ stack: 'x', handlers: ['crun'] }] },
      inputs,
    );
    expect(config.benchmarks).toEqual(['operations.container.lifecycle']);
    expect(config.runs).toBe(12);
    expect(config.targets).toEqual([
      { cri: 'containerd', handlers: 'all', transport: 'grpc', crictl: 'crictl' },
    ]);
  });
});
