// The pure half of the OCI spec-version check of nerdctl targets: the spec version of a container
// nerdctl created, the probe's config, and the reading of a runtime's answer. The answers are what the
// runtimes printed for the probe on this host (crun 1.8.1 and 1.21, runc 1.1.5; see
// spec-version.ts), copied here by hand.
import { describe, expect, test } from 'vitest';
import {
  parseInspectSpecVersion,
  probeConfig,
  specRefusalReason,
  specRefusedBy,
} from '../../../src/engine/spec-version.ts';

describe('spec version', () => {
  test("parseInspectSpecVersion: the ociVersion of the first container's Spec, else null", () => {
    // The shape of `nerdctl container inspect --mode native` (nerdctl 2.1: native.Container).
    const inspect = JSON.stringify([
      {
        ID: 'rb-spec-0a1b2c3d',
        Runtime: { Name: 'io.containerd.runc.v2' },
        Spec: { ociVersion: '1.2.1', process: {} },
      },
    ]);
    expect(parseInspectSpecVersion(inspect)).toBe('1.2.1');
    expect(parseInspectSpecVersion('[]')).toBeNull();
    expect(parseInspectSpecVersion('[{"ID": "x"}]')).toBeNull();
    expect(parseInspectSpecVersion('[{"Spec": {"ociVersion": ""}}]')).toBeNull();
    expect(parseInspectSpecVersion('time="…" level=fatal msg="no such container"')).toBeNull();
  });

  test('probeConfig: the version and nothing else', () => {
    expect(JSON.parse(probeConfig('1.2.1'))).toEqual({ ociVersion: '1.2.1' });
  });

  test.each([
    // crun 1.8.1 with spec 1.2.0: refused, in its words.
    [{ exitCode: 1, output: 'unknown version specified\n' }, 'unknown version specified'],
    // crun 1.8.1 with 1.1.0, crun 1.21 with 1.3.0: past the version, stopped by the missing linux block.
    [{ exitCode: 1, output: "invalid config file, no 'linux' block specified\n" }, null],
    [{ exitCode: 1, output: 'invalid config file, no `linux` block specified\n' }, null],
    // runc 1.1.5 with any version: logrus-formatted, about the process.
    [
      {
        exitCode: 1,
        output:
          'time="2026-11-27T03:18:13Z" level=error msg="runc create failed: process property must not be empty"\n',
      },
      null,
    ],
    // runsc 20xx with any version: stopped at the missing process, printing the spec with its version.
    [
      {
        exitCode: 128,
        output:
          'FetchSpec failed: reading spec: Spec.Process must be defined: &{Version:1.3.0 Process:<nil> Root:<nil> Hostname: Domainname: Mounts:[] Hooks:<nil> Annotations:map[] Linux:<nil> Solaris:<nil> Windows:<nil> VM:<nil> ZOS:<nil>}\n',
      },
      null,
    ],
    // A runtime that names the version in a logrus line: its message, without the time and level.
    [
      {
        exitCode: 1,
        output: 'time="2026-11-27T03:18:13Z" level=error msg="unsupported spec version 1.3.0"\n',
      },
      '"unsupported spec version 1.3.0"',
    ],
    // A runtime that created a container from that config checks nothing: it takes the version.
    [{ exitCode: 0, output: '' }, null],
  ])('specRefusedBy(%j) = %j', (probe, expected) => {
    expect(specRefusedBy(probe)).toBe(expected);
  });

  test('the refusal names the runtime and its version, the spec, nerdctl and its containerd, the fix', () => {
    const reason = specRefusalReason({
      runtime: { name: 'crun', version: '1.8.1' },
      specVersion: '1.2.1',
      nerdctl: '2.1.2',
      containerd: '1.7.35',
      message: 'unknown version specified',
    });
    for (const part of [
      'crun 1.8.1 refuses OCI runtime spec 1.2.1, which nerdctl 2.1.2 writes',
      'here containerd 1.7.35',
      'crun says: unknown version specified',
      'runtime-bench install --source distro --suites trixie crun@1.21',
      'PATH=/opt/runtime-bench/crun/1.21/bin:$PATH',
    ])
      expect(reason).toContain(part);
  });
});
