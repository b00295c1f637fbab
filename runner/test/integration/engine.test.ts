// Engine targets end to end on the real Docker (Debian's docker.io: a private dockerd per run),
// Podman (a private storage root per run) and nerdctl (built from a checkout by `runtime-bench
// install --source git … nerdctl@v2.1.3`, with a private containerd per run), each with runc and crun: `runtime-bench run` of the
// engine.* benchmarks, then a SIGINT mid-run; after each, nothing of the run may be left —
// containers, daemons, shims, mounts, cgroups, the private root, the shim's runc state of the
// run's containerd namespace. Budget: image build (≈ 10 s), daemon starts and image loads
// (≈ 20 s), 3 engines × 2 runtimes × (2 × 3 runs + 2 × 2 first outputs + one memory bisection
// of ≈ 10 runs) ≈ 3 min on a loaded host, SIGINT (≈ 30 s), SIGKILL and the run that cleans
// after it (≈ 1 min).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { installedBinDirs } from '../../src/engine/engine.ts';
import { ENGINES_DIR } from '../../src/engine/kind.ts';
import { SHIM_STATE_DIR } from '../../src/engine/nerdctl-plan.ts';
import { DEFAULT_PREFIX } from '../../src/install/plan.ts';
import { runCli, runCliSignalled } from '../support/cli.ts';
import { hostNetwork } from '../support/host-network.ts';
import { cgroupsNamed, isRoot, mountsUnder, onPath, processesUnder } from '../support/host.ts';

/** nerdctl as runtime-bench installs it (newest build under the prefix), or on PATH. */
const nerdctlInstalled = (): boolean =>
  onPath('nerdctl') ||
  (existsSync(join(DEFAULT_PREFIX, 'nerdctl')) &&
    readdirSync(join(DEFAULT_PREFIX, 'nerdctl')).some((v) =>
      existsSync(join(DEFAULT_PREFIX, 'nerdctl', v, 'bin', 'nerdctl')),
    ));

const INSTALL: Record<'docker' | 'podman' | 'nerdctl', string> = {
  docker: 'apt-get install docker.io runc crun',
  podman: 'apt-get install podman runc crun',
  nerdctl:
    'runtime-bench install --source git --git-dir <nerdctl checkout> nerdctl@v2.1.3; apt-get install containerd runc crun',
};

/** Why an engine's tests cannot run here (naming the package that brings it), or null. */
function engineUnavailable(engine: 'docker' | 'podman' | 'nerdctl'): string | null {
  if (!isRoot) return 'needs root (a private daemon, mounts, cgroups)';
  const need = { docker: ['docker', 'dockerd'], podman: ['podman', 'conmon'], nerdctl: ['containerd'] }[
    engine
  ];
  const missing = [...need, 'runc', 'crun', 'busybox', 'catatonit', 'sysbench'].filter((c) => !onPath(c));
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
${engines.map((e) => `  - { kind: engine, engine: ${e}, runtimes: [runc, crun] }`).join('\n')}
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

/** Nothing of the run with this id is left on the host. */
function expectNothingLeft(result: RunResult): void {
  expectRootGone(result.runId.slice(-8));
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

describe.skipIf(engines.length === 0)('engine targets (Docker, Podman, nerdctl) × runc, crun', () => {
  test('run to exit and time to first output: every target measured, engine recorded, nothing left', async () => {
    const out = join(work, 'engines.json');
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
    if (engines.includes('nerdctl')) {
      // nerdctl's containerd is in the result with the version it reports itself, and the
      // nerdctl runtime-bench built carries its build record.
      const containerd = result.components.find((c) => c.name === 'containerd')!;
      const binary = containerd.path!;
      const own = execFileSync(binary, ['--version'], { encoding: 'utf8' });
      expect(own).toContain(containerd.version);
      const nerdctl = result.components.find((c) => c.name === 'nerdctl')!;
      const built = (await installedBinDirs(DEFAULT_PREFIX, 'nerdctl')).length > 0 && !onPath('nerdctl');
      if (built) expect(nerdctl.build?.origin).toMatch(/@v2\.\d+\.\d+$/);
    }
    // Every target of a benchmark ran with the same parameters, so compare pairs any two of them.
    for (const name of new Set(result.results.map((r) => r.benchmark))) {
      const params = result.results
        .filter((r) => r.benchmark === name)
        .map((r) => JSON.stringify(r.parameters));
      expect(new Set(params).size, name).toBe(1);
    }
    for (const r of result.results) {
      expect(r.status, JSON.stringify(r)).toBe('ok');
      const m = (name: string): number[] => r.metrics.find((x) => x.name === name)!.samples;
      if (r.benchmark === 'engine.startup.latency') {
        expect(m('error_rate')).toEqual([0, 0, 0]);
        for (let i = 0; i < 3; i++) {
          expect(m('latency_min')[i]!).toBeGreaterThan(0);
          expect(m('latency_min')[i]!).toBeLessThanOrEqual(m('latency_median')[i]!);
          expect(m('latency_median')[i]!).toBeLessThanOrEqual(m('latency_max')[i]!);
          // Four runs one after the other: the repetition's wall time holds four of the fastest.
          expect(m('total_time')[i]! * 1000).toBeGreaterThanOrEqual(4 * m('latency_min')[i]!);
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
          expect(m(name)).toHaveLength(3);
          for (const v of m(name)) expect(v).toBeGreaterThan(0);
        }
      }
    }
    expectNothingLeft(result);
  }, 600_000);

  test('SIGINT mid-run: exit 130, an incomplete result with interrupted benchmarks, nothing left', async () => {
    const out = join(work, 'engines-int.json');
    const args = ['run', '--config', config('engines-int', 50, 2), '--out', out];
    const run = await runCliSignalled(args, /run 1\/50: ok/, 'SIGINT');
    expect(run.sent, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.status).toBe('incomplete');
    expect(result.incompleteReason).toBe('interrupted by SIGINT');
    expect(result.results.map((r) => r.status)).toEqual(result.results.map(() => 'interrupted'));
    expect(result.results.map((r) => r.failedAttempts)).toEqual(result.results.map(() => 0));
    expect(result.results[0]!.attempts).toBeGreaterThanOrEqual(1);
    expectNothingLeft(result);
  }, 600_000);

  test('SIGKILL mid-run leaves the private engines behind; the next run removes them', async () => {
    const before = new Set(existsSync(ENGINES_DIR) ? readdirSync(ENGINES_DIR) : []);
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
    expectNothingLeft(RunResultSchema.parse(JSON.parse(readFileSync(join(work, 'next.json'), 'utf8'))));
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
  // nerdctl × crun depends on which containerd nerdctl gets (the tests above); the network's
  // path does not depend on the OCI runtime, so nerdctl runs it with runc here.
  const netRuntimes = (e: string): string => (e === 'nerdctl' ? 'runc' : 'runc, crun');
  const netConfig = (name: string, runs: number): string => {
    const file = join(work, `${name}.yaml`);
    writeFileSync(
      file,
      `name: ${name}
targets:
${engines.map((e) => `  - { kind: engine, engine: ${e}, runtimes: [${netRuntimes(e)}] }`).join('\n')}
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
      engines.flatMap((e) => netRuntimes(e).split(', ').map((r) => `${e}/${r}`)),
    );
    for (const r of result.results) {
      expect(r.status, JSON.stringify(r)).toBe('ok');
      expect(r.failedAttempts).toBe(0);
      expect(r.parameters).toMatchObject({ bytes: BYTES, network: 'bridge, one port published on 127.0.0.1' });
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
