// Engine targets end to end on the real Docker (Debian's docker.io: a private dockerd per run),
// Podman (a private storage root per run) and nerdctl (as `runtime-bench install --source go`
// builds it, on a private containerd 1.7.35 per run — pinned, so the test does not depend on
// which other containerd builds exist), each with runc and crun: `runtime-bench run` of the
// engine.* benchmarks, then a SIGINT mid-run; after each, nothing of the run may be left —
// containers, daemons, shims and their sockets, mounts, cgroups, network interfaces, iptables
// rules, the private root, the shim's runc state of the run's containerd namespace. nerdctl 2.x
// writes OCI spec 1.2+, which bookworm's crun 1.8 refuses: there nerdctl/crun must be reported
// unsupported before anything runs, the rest measured; then nerdctl again with crun 1.21 (from
// trixie, first on PATH), both runtimes measured. Budget: image build (≈ 10 s), daemon starts and
// image loads (≈ 20 s), 3 engines × 2 runtimes × (2 × 3 runs + 2 × 2 first outputs + one memory
// bisection of ≈ 10 runs) ≈ 3 min on a loaded host, SIGINT (≈ 30 s), SIGKILL and the run that
// cleans after it (≈ 1 min), nerdctl with crun 1.21 (≈ 1 min, plus ≈ 1 min to install that crun
// on a fresh machine).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { ENGINES_DIR } from '../../src/engine/kind.ts';
import { SHIM_STATE_DIR } from '../../src/engine/nerdctl-plan.ts';
import { DEFAULT_PREFIX } from '../../src/install/plan.ts';
import { runCli, runCliSignalled } from '../support/cli.ts';
import { hostNetwork, type HostNetwork } from '../support/host-network.ts';
import { cgroupsNamed, isRoot, mountsUnder, onPath, processesUnder } from '../support/host.ts';
import { ensureModernCrun } from '../support/shared-tools.ts';

/** nerdctl as runtime-bench installs it (newest build under the prefix), or on PATH. */
const nerdctlInstalled = (): boolean =>
  onPath('nerdctl') ||
  (existsSync(join(DEFAULT_PREFIX, 'nerdctl')) &&
    readdirSync(join(DEFAULT_PREFIX, 'nerdctl')).some((v) =>
      existsSync(join(DEFAULT_PREFIX, 'nerdctl', v, 'bin', 'nerdctl')),
    ));

/** The containerd the nerdctl target pins; scripts/setup-test.sh builds it from the Go module proxy. */
const NERDCTL_CONTAINERD = '1.7.35';

/** The bin/ directory of containerd `version` as `runtime-bench install` built it, shim beside it; or null. */
function containerdBin(version: string): string | null {
  const base = join(DEFAULT_PREFIX, 'containerd');
  const dir = (existsSync(base) ? readdirSync(base) : [])
    .filter((v) => v === version || v.startsWith(`${version}+`))
    .map((v) => join(base, v, 'bin'))
    .find((d) => existsSync(join(d, 'containerd')) && existsSync(join(d, 'containerd-shim-runc-v2')));
  return dir ?? null;
}

/**
 * The OCI spec version a nerdctl binary writes, from its Go build information (the `dep` line of
 * the runtime-spec module it links: a release vX.Y.Z writes "X.Y.Z").
 */
function specOf(nerdctl: string): string {
  const m = /\ndep\tgithub\.com\/opencontainers\/runtime-spec\tv([^\t\n]+)/.exec(
    readFileSync(nerdctl).toString('latin1'),
  );
  if (!m) throw new Error(`${nerdctl}: no runtime-spec module in its build information`);
  return m[1]!;
}

/** Bookworm's crun 1.8 takes spec 1.0.x and 1.1.x only (checked by hand with `crun run` of a bundle per version). */
const crunVersion = (binary = 'crun'): string =>
  /^crun version (\S+)/.exec(execFileSync(binary, ['--version'], { encoding: 'utf8' }))![1]!;
const crunTakes = (version: string, spec: string): boolean =>
  !/^1\.[0-8]\./.test(version) || /^1\.[01]\./.test(spec);

const INSTALL: Record<'docker' | 'podman' | 'nerdctl', string> = {
  docker: 'apt-get install docker.io runc crun',
  podman: 'apt-get install podman runc crun',
  nerdctl: `runtime-bench install --source go nerdctl@2.1.2 containerd@${NERDCTL_CONTAINERD} (scripts/setup-test.sh does); apt-get install runc crun`,
};

/** Why an engine's tests cannot run here (naming the package that brings it), or null. */
function engineUnavailable(engine: 'docker' | 'podman' | 'nerdctl'): string | null {
  if (!isRoot) return 'needs root (a private daemon, mounts, cgroups)';
  const need = { docker: ['docker', 'dockerd'], podman: ['podman', 'conmon'], nerdctl: [] }[engine];
  const missing = [...need, 'runc', 'crun', 'busybox', 'catatonit', 'sysbench'].filter((c) => !onPath(c));
  if (engine === 'nerdctl' && !containerdBin(NERDCTL_CONTAINERD))
    missing.unshift(`containerd ${NERDCTL_CONTAINERD} (with its runc shim) under ${DEFAULT_PREFIX}`);
  if (engine === 'nerdctl' && !nerdctlInstalled())
    missing.unshift(`nerdctl (not under ${DEFAULT_PREFIX} either)`);
  if (missing.length === 0) return null;
  return `missing on PATH: ${missing.join(', ')} (${INSTALL[engine]})`;
}

const engines = (['docker', 'podman', 'nerdctl'] as const).filter((e) => {
  const why = engineUnavailable(e);
  if (why) console.warn(`SKIPPED the ${e} engine tests: ${why}`);
  return why === null;
});
const work = mkdtempSync(join(tmpdir(), 'rb-engine-'));

function config(name: string, runs: number, count: number): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
targets:
${engines.map((e) => `  - { kind: engine, engine: ${e}, runtimes: [runc, crun]${e === 'nerdctl' ? `, containerd: "${NERDCTL_CONTAINERD}"` : ''} }`).join('\n')}
benchmarks: [engine]
skip: [engine.network] # the published-port tests at the end of this file
runs: ${runs}
runsPerBenchmark: { engine.limits: 1 }
warmup: 0
images: { largeSizeMiB: 16 }
parameters:
  startup.latency: { count: ${count} }
  limits.memory.min: { precisionBytes: 262144 }
`,
  );
  return file;
}

/**
 * What of the host a run may not change outside its private root: the network (rules, chains,
 * links, listeners, sysctls, IPAM leases) and the shims' sockets in /run/containerd/s (there
 * whatever containerd's state directory is).
 */
function hostState(): HostNetwork & { shimSockets: string[] } {
  const dir = '/run/containerd/s';
  return { ...hostNetwork(), shimSockets: existsSync(dir) ? readdirSync(dir).sort() : [] };
}

/** Nothing of the run with this id is left on the host; `before`: the host before the run. */
function expectNothingLeft(result: RunResult, before?: ReturnType<typeof hostState>): void {
  expectRootGone(result.runId.slice(-8));
  if (before) expect(hostState()).toEqual(before);
}

/** Nothing of the run root `key` (the run id's random part) is left on the host. */
function expectRootGone(key: string): void {
  const root = join(ENGINES_DIR, key);
  expect(existsSync(root), root).toBe(false);
  expect(mountsUnder(root)).toEqual([]);
  expect(processesUnder(root)).toEqual([]);
  const daemons = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /^(\S*\/)?(dockerd|containerd)\s/.test(l) && l.includes(root));
  expect(daemons).toEqual([]);
  for (const e of engines) expect(cgroupsNamed(`/rb-engine-${key}-${e}`)).toEqual([]);
  // The runc shim's state of the run's containerd namespaces (nerdctl).
  const shimState = existsSync(SHIM_STATE_DIR)
    ? readdirSync(SHIM_STATE_DIR).filter((ns) => ns.startsWith(`rb-${key}-`))
    : [];
  expect(shimState).toEqual([]);
  // Nothing in the caller's working directory either (conmon writes `oom` into its own).
  expect(readdirSync(process.cwd())).not.toContain('oom');
}

/**
 * What the refusal of nerdctl/crun must say when the crun on PATH does not take the spec version
 * the run's nerdctl writes; null when it takes it (or there is no nerdctl in the run).
 */
function expectedCrunRefusal(result: RunResult): string | null {
  const nerdctl = result.components.find((c) => c.name === 'nerdctl');
  if (!nerdctl) return null;
  const spec = specOf(nerdctl.path!);
  return crunTakes(crunVersion(), spec) ? null : `crun ${crunVersion()} refuses OCI runtime spec ${spec}`;
}

/** A measured engine result: ok, and its metrics consistent (`runs` repetitions of `count` runs each). */
function expectMeasured(r: RunResult['results'][number], runs = 3, count = 4): void {
  expect(r.status, JSON.stringify(r)).toBe('ok');
  const m = (name: string): number[] => r.metrics.find((x) => x.name === name)!.samples;
  if (r.benchmark === 'engine.startup.latency') {
    expect(m('error_rate')).toEqual(Array(runs).fill(0));
    for (let i = 0; i < runs; i++) {
      expect(m('latency_min')[i]!).toBeGreaterThan(0);
      expect(m('latency_min')[i]!).toBeLessThanOrEqual(m('latency_median')[i]!);
      expect(m('latency_median')[i]!).toBeLessThanOrEqual(m('latency_max')[i]!);
      // `count` runs one after the other: the repetition's wall time holds `count` of the fastest.
      expect(m('total_time')[i]! * 1000).toBeGreaterThanOrEqual(count * m('latency_min')[i]!);
    }
  } else if (r.benchmark === 'engine.limits.memory.min') {
    // The bisection's bracket: a limit that failed below one that ran, at most the precision apart.
    const [bytes, failed] = [m('bytes')[0]!, m('failed_bytes')[0]!];
    expect(failed).toBeLessThan(bytes);
    expect(bytes - failed).toBeLessThanOrEqual(262144);
    expect(m('attempts')[0]!).toBeGreaterThanOrEqual(2);
  } else {
    // The container's own clock reading came after the host's: a positive span, per image.
    for (const name of ['small_pod_to_output', 'large_pod_to_output']) {
      expect(m(name)).toHaveLength(runs);
      for (const v of m(name)) expect(v).toBeGreaterThan(0);
    }
  }
}

/**
 * nerdctl's containerd is the pinned one, in the result with the version it reports itself; the
 * nerdctl component names the spec version it writes (as its build information says) and, built
 * by runtime-bench, carries its build record. Returns the nerdctl component.
 */
function expectNerdctlRecorded(result: RunResult): RunResult['components'][number] {
  const containerd = result.components.find((c) => c.name === 'containerd')!;
  expect(containerd.path).toBe(join(containerdBin(NERDCTL_CONTAINERD)!, 'containerd'));
  expect(containerd.version).toBe(NERDCTL_CONTAINERD);
  expect(execFileSync(containerd.path!, ['--version'], { encoding: 'utf8' })).toContain(containerd.version);
  const nerdctl = result.components.find((c) => c.name === 'nerdctl')!;
  expect(nerdctl.detail).toContain(`; writes OCI runtime spec ${specOf(nerdctl.path!)}`);
  if (!onPath('nerdctl')) expect(nerdctl.build?.origin).toMatch(/@v2\.\d+\.\d+$/);
  return nerdctl;
}

describe.skipIf(engines.length === 0)('engine targets (Docker, Podman, nerdctl) × runc, crun', () => {
  test('run to exit and time to first output: every target measured, engine recorded, nothing left', async () => {
    const out = join(work, 'engines.json');
    const before = hostState();
    const run = await runCli(['run', '--config', config('engines', 3, 4), '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('complete');
    const ids = engines.flatMap((e) => [`${e}/runc`, `${e}/crun`]);
    expect(result.targets.map((t) => t.id)).toEqual(ids);
    for (const t of result.targets) {
      const engine = t.id.split('/')[0]!;
      expect(t.transport).toBe('engine');
      expect(t.engine?.name).toBe(engine);
      // The engine's own answers, not our defaults.
      expect(t.engine?.version).toMatch(/^\d+\.\d+/);
      expect(t.engine?.storageDriver).not.toBe('unknown');
      expect(t.engine?.cgroupManager).toBe('cgroupfs');
      expect(t.oci.version).toMatch(/^\d+\.\d+/);
      expect(t.oci.path).toBe(
        execFileSync('sh', ['-c', `command -v ${t.handler}`], { encoding: 'utf8' }).trim(),
      );
    }
    if (engines.includes('nerdctl')) expectNerdctlRecorded(result);
    const refused = expectedCrunRefusal(result);
    // Every target of a benchmark ran with the same parameters, so compare pairs any two of them.
    for (const name of new Set(result.results.map((r) => r.benchmark))) {
      const params = result.results
        .filter((r) => r.benchmark === name)
        .map((r) => JSON.stringify(r.parameters));
      expect(new Set(params).size, name).toBe(1);
    }
    for (const r of result.results) {
      if (refused && r.target === 'nerdctl/crun') {
        // Not one container was tried with it; the reason names the runtime, the spec and the fix.
        expect(r.status, JSON.stringify(r)).toBe('unsupported');
        expect([r.attempts, r.failedAttempts]).toEqual([0, 0]);
        expect(r.reason).toContain(refused);
        expect(r.reason).toContain(`here containerd ${NERDCTL_CONTAINERD}`);
        expect(r.reason).toContain('--suites trixie crun@1.21');
        continue;
      }
      expectMeasured(r);
    }
    if (refused) expect(run.stderr).toContain(`nerdctl/crun: not measured: ${refused}`);
    expectNothingLeft(result, before);
  }, 600_000);

  test('SIGINT mid-run: exit 130, an incomplete result with interrupted benchmarks, nothing left', async () => {
    const out = join(work, 'engines-int.json');
    const before = hostState();
    const args = ['run', '--config', config('engines-int', 50, 2), '--out', out];
    const run = await runCliSignalled(args, /run 1\/50: ok/, 'SIGINT');
    expect(run.sent, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('incomplete');
    expect(result.incompleteReason).toBe('interrupted by SIGINT');
    // Everything interrupted, but a refused nerdctl/crun (see the first test): unsupported from the start.
    const refused = expectedCrunRefusal(result);
    const expected = (target: string): string =>
      refused && target === 'nerdctl/crun' ? 'unsupported' : 'interrupted';
    expect(result.results.map((r) => r.status)).toEqual(result.results.map((r) => expected(r.target)));
    expect(result.results.map((r) => r.failedAttempts)).toEqual(result.results.map(() => 0));
    expect(result.results[0]!.attempts).toBeGreaterThanOrEqual(1);
    expectNothingLeft(result, before);
  }, 600_000);

  test('SIGKILL mid-run leaves the private engines behind; the next run removes them', async () => {
    const before = new Set(existsSync(ENGINES_DIR) ? readdirSync(ENGINES_DIR) : []);
    const host = hostState();
    let sent = false;
    const killed = await runCli(
      ['run', '--config', config('engines-kill', 50, 2), '--out', join(work, 'k.json')],
      {
        onStderr: (text, child) => {
          if (!sent && /run 1\/50: ok/.test(text)) {
            sent = true;
            child.kill('SIGKILL');
          }
        },
      },
    );
    expect(sent, killed.stderr).toBe(true);
    expect(killed.signal).toBe('SIGKILL');
    const left = readdirSync(ENGINES_DIR).filter((k) => !before.has(k));
    // What a killed run could not remove is there (this is what the next run must clean).
    expect(left).toHaveLength(1);
    expect(
      processesUnder(join(ENGINES_DIR, left[0]!)).length + mountsUnder(join(ENGINES_DIR, left[0]!)).length,
    ).toBeGreaterThan(0);
    const next = await runCli([
      'run',
      '--config',
      config('engines-next', 1, 1),
      '--out',
      join(work, 'next.json'),
    ]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`removing what an earlier run left in ${join(ENGINES_DIR, left[0]!)}`);
    expectRootGone(left[0]!);
    // The killed run's shims were stopped by the next run, which removed their sockets too.
    expectNothingLeft(RunResultSchema.parse(JSON.parse(readFileSync(join(work, 'next.json'), 'utf8'))), host);
  }, 600_000);
});

describe.skipIf(!engines.includes('nerdctl'))('nerdctl with a crun that takes its spec version', () => {
  test('crun 1.21 (trixie) first on PATH: nerdctl × runc and crun measured, nothing left', async () => {
    const crun = await ensureModernCrun();
    const file = join(work, 'nerdctl-crun.yaml');
    writeFileSync(
      file,
      `name: nerdctl-crun
targets:
  - { kind: engine, engine: nerdctl, containerd: "${NERDCTL_CONTAINERD}", runtimes: [runc, crun] }
benchmarks: [engine]
skip: [engine.network] # the published-port tests at the end of this file
runs: 2
runsPerBenchmark: { engine.limits: 1 }
warmup: 0
images: { largeSizeMiB: 16 }
parameters:
  startup.latency: { count: 2 }
  limits.memory.min: { precisionBytes: 262144 }
`,
    );
    const out = join(work, 'nerdctl-crun.json');
    const before = hostState();
    const env = { ...process.env, PATH: `${join(crun, '..')}:${process.env.PATH ?? ''}` };
    const run = await runCli(['run', '--config', file, '--out', out], { env });
    expect(run.code, run.stderr).toBe(0);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('complete');
    const nerdctl = expectNerdctlRecorded(result);
    expect(crunTakes(crunVersion(crun), specOf(nerdctl.path!))).toBe(true);
    const target = result.targets.find((t) => t.id === 'nerdctl/crun')!;
    expect([target.oci.path, target.oci.version]).toEqual([crun, crunVersion(crun)]);
    expect(result.results.map((r) => r.target).sort()).toEqual(
      ['runc', 'crun'].flatMap((rt) => Array(result.benchmarks.length).fill(`nerdctl/${rt}`)).sort(),
    );
    for (const r of result.results) expectMeasured(r, r.benchmark === 'engine.limits.memory.min' ? 1 : 2, 2);
    expectNothingLeft(result, before);
  }, 600_000);
});

// engine.network.throughput: a container per direction on each engine's private bridge network
// with its port published on 127.0.0.1 (Docker's docker-proxy, Podman's and nerdctl's CNI
// portmap). The far side's byte counts are in the result; after a run and after a SIGINT the host
// holds nothing of the networks: rules, chains, bridges, veths, listeners, IPAM leases, sysctls.
// Budget: image build and engine starts (≈ 1 min), targets × 2 runs × 2 directions of 32 MiB
// (≈ 2 min), the SIGINT run (≈ 1.5 min).
describe.skipIf(engines.length === 0)('engine.network.throughput: a port published on loopback', () => {
  const BYTES = 32 * 1024 * 1024;
  // nerdctl 2's OCI spec version is one bookworm's crun refuses (nerdctl/crun is then reported
  // unsupported: the tests above); the network's path does not depend on the OCI runtime, so
  // nerdctl runs it with runc here.
  const netRuntimes = (e: string): string => (e === 'nerdctl' ? 'runc' : 'runc, crun');
  const netConfig = (name: string, runs: number): string => {
    const file = join(work, `${name}.yaml`);
    writeFileSync(
      file,
      `name: ${name}
targets:
${engines.map((e) => `  - { kind: engine, engine: ${e}, runtimes: [${netRuntimes(e)}]${e === 'nerdctl' ? `, containerd: "${NERDCTL_CONTAINERD}"` : ''} }`).join('\n')}
benchmarks: [engine.network]
runs: ${runs}
warmup: 0
images: { largeSizeMiB: 16 }
parameters:
  network.throughput: { bytes: ${BYTES} }
`,
    );
    return file;
  };

  test('every target: the far side counted every byte both ways; nothing of the networks left', async () => {
    const before = hostNetwork();
    const out = join(work, 'net.json');
    const run = await runCli(['run', '--config', netConfig('net', 2), '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('complete');
    for (const t of result.targets) expect(t.engine?.networkBackend, t.id).not.toBe('none');
    expect(result.results.map((r) => r.target)).toEqual(
      engines.flatMap((e) =>
        netRuntimes(e)
          .split(', ')
          .map((r) => `${e}/${r}`),
      ),
    );
    for (const r of result.results) {
      expect(r.status, JSON.stringify(r)).toBe('ok');
      expect(r.failedAttempts).toBe(0);
      expect(r.parameters).toMatchObject({
        bytes: BYTES,
        network: 'bridge, one port published on 127.0.0.1',
      });
      const m = (name: string): number[] => r.metrics.find((x) => x.name === name)!.samples;
      // The container's wc -c, and the host's count of dd's whole 64 KiB blocks.
      expect(m('host_to_pod_bytes')).toEqual([BYTES, BYTES]);
      expect(m('pod_to_host_bytes')).toEqual([BYTES, BYTES]);
      for (const v of [...m('host_to_pod'), ...m('pod_to_host')]) expect(v).toBeGreaterThan(0);
    }
    expect(hostNetwork()).toEqual(before);
    expectNothingLeft(result);
  }, 600_000);

  test('SIGINT mid-run: exit 130, interrupted, nothing of the networks left', async () => {
    const before = hostNetwork();
    const out = join(work, 'net-int.json');
    const args = ['run', '--config', netConfig('net-int', 50), '--out', out];
    const run = await runCliSignalled(args, /run 1\/50: ok/, 'SIGINT');
    expect(run.sent, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('incomplete');
    expect(result.results.map((r) => r.status)).toEqual(result.results.map(() => 'interrupted'));
    expect(hostNetwork()).toEqual(before);
    expectNothingLeft(result);
  }, 600_000);
});
