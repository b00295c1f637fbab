import { describe, expect, test } from 'vitest';
import { InstallRecordSchema, type InstallRecord } from '@runtime-bench/runner/install';
import { buildRunConfig } from '../src/run-config.ts';
import { readInputs } from '../src/inputs.ts';

/** An install record with one handler per `name@version` installed, as the installer names them. */
function recordWith(installed: [name: string, version: string][], containerd = '2.1.9'): InstallRecord {
  return InstallRecordSchema.parse({
    recordVersion: 1,
    prefix: '/opt/runtime-bench',
    source: 'release',
    createdAt: '2026-11-27T00:00:00Z',
    components: [],
    handlers: installed.map(([name, version]) => ({
      name: `${name}-${version}`,
      binary: `/opt/runtime-bench/${name}/${version}/bin/${name}`,
      kind: name,
    })),
    containerd: [
      { version: containerd, binary: `/opt/runtime-bench/containerd/${containerd}/bin/containerd` },
    ],
    crictl: null,
    stackConfig: '/tmp/stack.yaml',
    created: [],
    stacks: [],
  });
}

const inputs = (env: Record<string, string>) => readInputs(env);

describe('the run config of the action', () => {
  test('a nightly at "latest" keeps one target and handler name across releases; the versions stay in the result', () => {
    const names = (runc: string, containerd: string) => {
      const config = buildRunConfig(
        null,
        inputs({ 'INPUT_OCI-RUNTIMES': 'runc@latest crun' }),
        recordWith(
          [
            ['runc', runc],
            ['crun', '1.21'],
          ],
          containerd,
        ),
      );
      const target = config.targets[0]!;
      return {
        target: target.name,
        handlers: 'handlers' in target ? target.handlers : [],
        binaries: config.stack.extraHandlers.map((h) => `${h.name} ${h.binary}`),
      };
    };
    const before = names('1.4.3', '2.1.9');
    const after = names('1.4.4', '2.2.0');
    expect(before.target).toBe('containerd-latest');
    expect(before.handlers).toEqual(['runc-latest', 'crun-latest']);
    // Same names the night after a release; the binaries are the new versions'.
    expect({ ...after, binaries: [] }).toEqual({ ...before, binaries: [] });
    expect(after.binaries).toEqual([
      'runc-latest /opt/runtime-bench/runc/1.4.4/bin/runc',
      'crun-latest /opt/runtime-bench/crun/1.21/bin/crun',
    ]);
  });

  test('a pinned reference handler keeps its version in its name beside runc@latest', () => {
    const config = buildRunConfig(
      null,
      inputs({ 'INPUT_OCI-RUNTIMES': 'runc@latest runc@1.2.6', 'INPUT_CRI-VERSION': '2.1.9' }),
      recordWith([
        ['runc', '1.4.3'],
        ['runc', '1.2.6'],
      ]),
    );
    const target = config.targets[0]!;
    expect(target.name).toBe('containerd-2.1.9');
    expect('handlers' in target ? target.handlers : []).toEqual(['runc-latest', 'runc-1.2.6']);
  });

  test('pinned versions only, or two moving requests of one runtime: every handler keeps its versioned name', () => {
    const pinned = buildRunConfig(
      null,
      inputs({ 'INPUT_OCI-RUNTIMES': 'runc@1.3.6 crun@1.21' }),
      recordWith([
        ['runc', '1.3.6'],
        ['crun', '1.21'],
      ]),
    ).targets[0]!;
    expect('handlers' in pinned ? pinned.handlers : []).toEqual(['runc-1.3.6', 'crun-1.21']);
    const twice = buildRunConfig(
      null,
      inputs({ 'INPUT_OCI-RUNTIMES': 'runc@latest runc' }),
      recordWith([['runc', '1.4.3']]),
    ).targets[0]!;
    expect('handlers' in twice ? twice.handlers : []).toEqual(['runc-1.4.3']);
  });
});
