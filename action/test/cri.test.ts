// Argument building for the CRI runtime and client the inputs choose: what `install` and
// `stack up` are asked for. Expected arguments are written out by hand from the CLI's usage.
import { describe, expect, test } from 'vitest';
import type { InstallRecord } from '@runtime-bench/runner/install';
import { readInputs } from '../src/inputs.ts';
import { criVersion, installSpecs, stackUpArgs } from '../src/cri.ts';

const record = (extra: Partial<InstallRecord> = {}): InstallRecord => ({
  recordVersion: 1,
  prefix: '/opt/runtime-bench',
  source: 'path',
  createdAt: '2026-11-23T00:00:00.000Z',
  components: [],
  handlers: [],
  containerd: [],
  crio: [],
  crictl: null,
  stackConfig: '/tmp/stack.yaml',
  created: [],
  stacks: [],
  ...extra,
});

describe('install specs', () => {
  test('cri: cri-o installs cri-o at the asked version', () => {
    const i = readInputs({
      INPUT_CRI: 'cri-o',
      INPUT_CRI_VERSION: '1.36.3',
      INPUT_OCI_RUNTIMES: 'runc@1.3.6',
    });
    expect(installSpecs(i)).toEqual(['cri-o@1.36.3', 'runc@1.3.6']);
  });

  test('cri-client: crictl installs crictl (latest unless pinned)', () => {
    expect(installSpecs(readInputs({ INPUT_CRI_CLIENT: 'crictl', INPUT_CRI_VERSION: '2.1.9' }))).toEqual([
      'containerd@2.1.9',
      'runc@latest',
      'crictl@latest',
    ]);
    const pinned = readInputs({ INPUT_CRI_CLIENT: 'crictl', INPUT_CRICTL_VERSION: '1.36.0' });
    expect(installSpecs(pinned).at(-1)).toBe('crictl@1.36.0');
  });

  test('path source: cri-o and crictl are taken as found on the runner', () => {
    const i = readInputs({ INPUT_SOURCE: 'path', INPUT_CRI: 'cri-o', INPUT_CRI_CLIENT: 'crictl' });
    expect(installSpecs(i)).toEqual(['cri-o', 'runc', 'crictl']);
  });

  test('grpc without a crictl version installs no crictl', () => {
    expect(installSpecs(readInputs({}))).toEqual(['containerd@latest', 'runc@latest']);
  });
});

describe('stack up arguments', () => {
  test('containerd: --containerd with the installed binary', () => {
    const r = record({
      containerd: [{ version: '2.1.9', binary: '/opt/rb/containerd/2.1.9/bin/containerd' }],
    });
    expect(stackUpArgs(readInputs({ INPUT_STACK_NAME: 'n1' }), r, '/w/config.yaml')).toEqual([
      'stack',
      'up',
      '--stack',
      'n1',
      '--config',
      '/w/config.yaml',
      '--fix-host',
      '--containerd',
      '/opt/rb/containerd/2.1.9/bin/containerd',
    ]);
    expect(criVersion(readInputs({}), r)).toBe('2.1.9');
  });

  test('cri-o: --cri cri-o --crio with the installed crio', () => {
    const r = record({
      crio: [{ version: '1.36.3', binary: '/opt/rb/cri-o/1.36.3/bin/crio', pinns: null, conmon: null }],
    });
    const i = readInputs({ INPUT_CRI: 'cri-o' });
    expect(stackUpArgs(i, r, '/w/c.yaml')).toEqual([
      'stack',
      'up',
      '--stack',
      'action',
      '--config',
      '/w/c.yaml',
      '--fix-host',
      '--cri',
      'cri-o',
      '--crio',
      '/opt/rb/cri-o/1.36.3/bin/crio',
    ]);
    expect(criVersion(i, r)).toBe('1.36.3');
  });

  test('fix-host: false leaves the host as it is (no --fix-host)', () => {
    const args = stackUpArgs(readInputs({ INPUT_FIX_HOST: 'false' }), record(), '/w/c.yaml');
    expect(args).not.toContain('--fix-host');
    expect(args.slice(0, 6)).toEqual(['stack', 'up', '--stack', 'action', '--config', '/w/c.yaml']);
  });

  test('cri-o without a crio in the record is a clear error', () => {
    expect(() => stackUpArgs(readInputs({ INPUT_CRI: 'cri-o' }), record(), '/w/c.yaml')).toThrow(
      /cri: cri-o, but the install recorded no crio binary/,
    );
  });
});
