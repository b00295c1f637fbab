import { describe, expect, test } from 'vitest';
import { ConfigSchema, criTargets } from '@runtime-bench/schemas';
import {
  describeEndpoint,
  endpointLabels,
  planEndpoints,
  resolveHandlers,
} from '../../../src/kinds/target-plan.ts';
import type { StackState } from '../../../src/stack/state.ts';

const config = (targets: unknown[]) => ConfigSchema.parse({ targets });

describe('endpointLabels', () => {
  test.each([
    [[{ cri: 'containerd' }], ['containerd']],
    [
      [{ cri: 'containerd', name: 'prod' }, { cri: 'containerd' }],
      ['prod', 'containerd'],
    ],
    // Same CRI, different transports: the transport tells them apart.
    [
      [
        { cri: 'containerd', transport: 'grpc' },
        { cri: 'containerd', transport: 'crictl' },
      ],
      ['containerd-grpc', 'containerd-crictl'],
    ],
    // Same CRI and transport (two stacks): numbered by position.
    [
      [
        { cri: 'containerd', stack: 'a' },
        { cri: 'containerd', stack: 'b' },
      ],
      ['containerd-1', 'containerd-2'],
    ],
    // Two of three share a transport: those two are numbered, the third is named by its transport.
    [
      [
        { cri: 'containerd', stack: 'a' },
        { cri: 'containerd', stack: 'b' },
        { cri: 'containerd', stack: 'c', transport: 'crictl' },
      ],
      ['containerd-1', 'containerd-2', 'containerd-crictl'],
    ],
    [
      [{ cri: 'containerd' }, { cri: 'cri-o' }],
      ['containerd', 'cri-o'],
    ],
  ])('%j → %j', (targets, labels) => {
    expect(endpointLabels(criTargets(config(targets).targets))).toEqual(labels);
  });
});

describe('planEndpoints', () => {
  test('an endpoint loses its scheme; a target without one uses the stack "default"', () => {
    const plans = planEndpoints(
      config([{ endpoint: 'unix:///run/x.sock', handlers: ['runc'] }, { transport: 'crictl' }]),
    );
    expect(plans.map((p) => p.source)).toEqual([
      { kind: 'endpoint', socket: '/run/x.sock' },
      { kind: 'stack', name: 'default' },
    ]);
    expect(plans.map((p) => [p.label, p.transport])).toEqual([
      ['containerd-grpc', 'grpc'],
      ['containerd-crictl', 'crictl'],
    ]);
  });
  test('beside engine targets, each plan keeps its place in the config for error messages', () => {
    const plans = planEndpoints(
      config([{ kind: 'engine', engine: 'docker', runtimes: ['runc'] }, { stack: 's' }, { stack: 't' }]),
    );
    expect(plans.map((p) => [p.index, p.source])).toEqual([
      [1, { kind: 'stack', name: 's' }],
      [2, { kind: 'stack', name: 't' }],
    ]);
  });
});

const stack = {
  name: 's',
  cri: 'containerd',
  daemon: { path: '/usr/bin/containerd', version: '2.1.0' },
  containerd: { configVersion: 3 },
  imageComponents: [],
  handlers: [
    { name: 'runc', kind: 'runc', binary: '/usr/bin/runc', version: '1.2', versionOutput: 'runc 1.2' },
  ],
  skippedHandlers: [{ name: 'youki', binary: '/x/youki', reason: 'not installed' }],
} as unknown as StackState;

describe('resolveHandlers and describeEndpoint', () => {
  const [plan] = planEndpoints(config([{ stack: 's', handlers: ['runc'] }]));
  test('a listed handler the stack skipped names the field and the reason', () => {
    const [bad] = planEndpoints(config([{ stack: 's', handlers: ['runc', 'youki'] }]));
    expect(() => resolveHandlers(bad!, stack)).toThrow(/targets\[0\]\.handlers\[1\].*youki.*not installed/);
    expect(() => resolveHandlers({ ...plan!, handlers: 'all' }, null)).toThrow(/targets\[0\]\.handlers/);
    expect(resolveHandlers({ ...plan!, handlers: 'all' }, stack)).toEqual(['runc']);
  });
  test('one target per handler, ids from the label, the CRI version parsed', () => {
    const d = describeEndpoint(
      plan!,
      '/run/c.sock',
      { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: 'v2.1.0', runtimeApiVersion: 'v1' },
      stack,
      [{ name: 'runc', oci: { name: 'runc', version: '1.2', path: '/usr/bin/runc' } }],
    );
    expect(d.targets.map((t) => t.record)).toEqual([
      {
        id: 'containerd/runc',
        cri: { name: 'containerd', version: '2.1.0', apiVersion: 'v1', endpoint: 'unix:///run/c.sock' },
        handler: 'runc',
        oci: { name: 'runc', version: '1.2', path: '/usr/bin/runc' },
        transport: 'grpc',
      },
    ]);
    expect(d.components.map((c) => `${c.role}:${c.name}@${c.version}`)).toEqual([
      'cri:containerd@2.1.0',
      'oci:runc@1.2',
    ]);
  });
  test('a runtime runtime-bench built carries its build record into the result', () => {
    const build = {
      source: 'go' as const,
      origin: 'github.com/opencontainers/runc@v1.2.0',
      commit: '0b9fa21be2bcba45f6d9d748b4bcf70cfbffbc19',
      toolchain: 'go1.22.12',
      command: ['go build -o runc .'],
      env: { CGO_ENABLED: '1' },
      stamps: { 'main.version': '1.2.0' },
      deps: { 'libseccomp-dev': '2.5.4-1+deb12u1' },
      rules: [],
      notes: [],
      builtAt: '2026-11-26T21:00:00.000Z',
    };
    const d = describeEndpoint(
      plan!,
      '/run/c.sock',
      { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: 'v2.1.0', runtimeApiVersion: 'v1' },
      stack,
      [
        {
          name: 'runc-1.2.0',
          oci: { name: 'runc', version: '1.2.0', path: '/opt/rb/runc/1.2.0+go1.22.12/bin/runc', build },
        },
        { name: 'runc', oci: { name: 'runc', version: '1.1.12', path: '/usr/sbin/runc' } },
      ],
    );
    const oci = d.components.filter((c) => c.role === 'oci');
    expect(oci[0]!.build).toEqual(build);
    expect(oci[1]).not.toHaveProperty('build');
  });
  test('so does a CRI daemon runtime-bench built', () => {
    const build = {
      source: 'go' as const,
      origin: 'github.com/containerd/containerd/v2@v2.0.14',
      commit: null,
      toolchain: 'go1.25.14',
      command: ['go build -o containerd ./cmd/containerd'],
      env: { CGO_ENABLED: '1' },
      stamps: { 'github.com/containerd/containerd/v2/version.Version': 'v2.0.14' },
      deps: {},
      rules: [],
      notes: [],
      builtAt: '2026-11-27T00:10:00.000Z',
    };
    const version = {
      version: '0.1.0',
      runtimeName: 'containerd',
      runtimeVersion: 'v2.0.14',
      runtimeApiVersion: 'v1',
    };
    const handlers = [{ name: 'runc', oci: { name: 'runc', version: '1.1.5', path: '/usr/sbin/runc' } }];
    const built = describeEndpoint(plan!, '/run/c.sock', version, stack, handlers, build);
    expect(built.components.find((c) => c.role === 'cri')!.build).toEqual(build);
    const plain = describeEndpoint(plan!, '/run/c.sock', version, stack, handlers);
    expect(plain.components.find((c) => c.role === 'cri')).not.toHaveProperty('build');
  });
});
