// The distro source for real: two containerd and two runc versions from two Debian suites
// (bookworm and trixie: two package-list downloads, not three), side by side under one temporary
// prefix (trixie's runc 1.1.15 through a private glibc), then a private containerd started from
// each installed version runs a pod with each installed runc.
import { execFile } from 'node:child_process';
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GrpcCriClient } from '../../src/cri/grpc-client.ts';
import type { InstallRecord } from '../../src/install/record.ts';
import { testStackName } from '../support/host.ts';

const run = promisify(execFile);
const cli = join(import.meta.dirname, '../../bin/runtime-bench.js');
const has = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

const isRoot = process.getuid?.() === 0;
const tools = await Promise.all(['/usr/bin/apt-get', '/usr/bin/dpkg-deb', '/usr/bin/patchelf'].map(has));
const reason = !isRoot ? 'needs root' : tools.includes(false) ? 'needs apt-get, dpkg-deb and patchelf' : null;
if (reason) console.warn(`install-distro integration test skipped: ${reason}`);

const SUITES = 'bookworm,trixie';
const VERSIONS = { containerd: ['1.6.20', '1.7.24'], runc: ['1.1.15', '1.1.5'] };
/** The runc built against trixie's glibc (newer than the host's bookworm one). */
const PATCHED_RUNC = '1.1.15';

// Explicit budgets, generous for a loaded 2-core machine: none of them is a measurement. The
// install refreshes two suites' package lists and downloads about 100 MB on a fresh machine.
const INSTALL_BUDGET_MS = 15 * 60_000;
const STACK_BUDGET_MS = 5 * 60_000;
const EXIT_BUDGET_MS = 60_000;
const UNINSTALL_BUDGET_MS = 5 * 60_000;

describe.runIf(reason === null)('distro install, side by side, runs pods', () => {
  let work: string;
  let prefix: string;
  let record: InstallRecord;
  const statePath = () => join(work, 'state', 'install.json');

  beforeAll(async () => {
    work = await mkdtemp('/var/tmp/rb-install-');
    prefix = join(work, 'opt');
    const specs = [
      ...VERSIONS.containerd.map((v) => `containerd@${v}`),
      ...VERSIONS.runc.map((v) => `runc@${v}`),
    ];
    const { stdout } = await run(
      process.execPath,
      [
        cli,
        'install',
        '--source',
        'distro',
        '--suites',
        SUITES,
        '--prefix',
        prefix,
        '--state',
        statePath(),
        '--json',
        ...specs,
      ],
      { maxBuffer: 16 * 1024 * 1024, timeout: INSTALL_BUDGET_MS },
    );
    record = JSON.parse(stdout) as InstallRecord;
  }, INSTALL_BUDGET_MS + 30_000);

  afterAll(async () => {
    if (work && (await has(statePath())))
      await run(process.execPath, [cli, 'uninstall', '--state', statePath()], {
        timeout: UNINSTALL_BUDGET_MS,
      }).catch(() => {});
    if (work) await rm(work, { recursive: true, force: true });
  }, UNINSTALL_BUDGET_MS + 30_000);

  test('every version is in its own directory and reports its own version', async () => {
    expect((await readdir(join(prefix, 'containerd'))).sort()).toEqual(VERSIONS.containerd);
    expect((await readdir(join(prefix, 'runc'))).sort()).toEqual(VERSIONS.runc);
    for (const v of VERSIONS.runc) {
      const { stdout } = await run(join(prefix, 'runc', v, 'bin', 'runc'), ['--version']);
      expect(stdout).toMatch(new RegExp(`^runc version ${v.replaceAll('.', '\\.')}`));
    }
    for (const v of VERSIONS.containerd) {
      const { stdout } = await run(join(prefix, 'containerd', v, 'bin', 'containerd'), ['--version']);
      expect(stdout).toContain(v);
    }
    // trixie's runc needs a newer glibc than bookworm's: its copy was pointed at the private loader
    // under its own directory.
    const { stdout: interp } = await run('patchelf', [
      '--print-interpreter',
      join(prefix, 'runc', PATCHED_RUNC, 'bin', 'runc'),
    ]);
    expect(interp.trim().startsWith(join(prefix, 'runc', PATCHED_RUNC, 'libs'))).toBe(true);
    expect(record.handlers.map((h) => h.name).sort()).toEqual(['runc-1.1.15', 'runc-1.1.5']);
  });

  test.each([
    [testStackName('install-a'), '1.6.20'],
    [testStackName('install-b'), '1.7.24'],
  ])(
    'stack %s on containerd %s runs a pod with each installed runc',
    { timeout: 2 * STACK_BUDGET_MS + 2 * EXIT_BUDGET_MS },
    async (name, version) => {
      const containerd = record.containerd.find((c) => c.version === version)!.binary;
      const stateDir = join(work, `stack-${name}`);
      const client = () => new GrpcCriClient(`unix://${join(stateDir, 'containerd.sock')}`, 60);
      try {
        await run(
          process.execPath,
          [
            cli,
            'stack',
            'up',
            '--stack',
            name,
            '--state-dir',
            stateDir,
            '--containerd',
            containerd,
            '--config',
            record.stackConfig,
          ],
          { timeout: STACK_BUDGET_MS },
        );
        const cri = client();
        try {
          expect((await cri.version()).runtimeVersion).toContain(version);
          for (const handler of record.handlers.map((h) => h.name)) {
            const uid = `${name}-${handler}-${Date.now()}`;
            const sandbox = {
              metadata: { name: `install-${handler}`, uid, namespace: 'default', attempt: 1 },
              logDirectory: join(stateDir, 'pod-logs'),
              linux: {},
            };
            const pod = await cri.runPodSandbox(sandbox, handler);
            expect((await cri.podSandboxStatus(pod)).runtimeHandler).toBe(handler);
            const id = await cri.createContainer(
              pod,
              {
                metadata: { name: 'hello' },
                image: { image: 'localhost/runtime-bench/bench:latest' },
                command: ['/bin/sh', '-c', 'exit 7'],
                logPath: `hello-${uid}.log`,
              },
              sandbox,
            );
            await cri.startContainer(id);
            // Wait for the exit by state, within a budget no load reaches (not a count of polls).
            const deadline = Date.now() + EXIT_BUDGET_MS;
            let status = await cri.containerStatus(id);
            while (status.state !== 'CONTAINER_EXITED' && Date.now() < deadline) {
              await new Promise((r) => setTimeout(r, 100));
              status = await cri.containerStatus(id);
            }
            // Exit code 7 proves the container's own process ran under this runc.
            expect([handler, status.state, status.exitCode]).toEqual([handler, 'CONTAINER_EXITED', 7]);
            await cri.removeContainer(id);
            await cri.stopPodSandbox(pod);
            await cri.removePodSandbox(pod);
          }
        } finally {
          cri.close();
        }
      } finally {
        await run(process.execPath, [cli, 'stack', 'down', '--stack', name, '--state-dir', stateDir], {
          timeout: STACK_BUDGET_MS,
        });
      }
    },
  );

  test('uninstall removes the prefix it created', { timeout: UNINSTALL_BUDGET_MS + 30_000 }, async () => {
    const { stdout } = await run(process.execPath, [cli, 'uninstall', '--state', statePath(), '--json'], {
      timeout: UNINSTALL_BUDGET_MS,
    });
    expect(JSON.parse(stdout).errors).toEqual([]);
    expect(await has(prefix)).toBe(false);
    expect(await has(statePath())).toBe(false);
  });
});
