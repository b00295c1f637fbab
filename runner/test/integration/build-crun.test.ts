// crun built from source for real. From the Debian archive: crun 1.21's source package (trixie)
// into a fresh prefix, its orig tarball checked against what the test downloads and hashes
// itself, the binary reporting the version and the commit the tarball carries; then a sweep over
// the versions the archive offers between 1.8.1 and 1.21 (1.21 from that build, 1.8.1 built now)
// runs the lifecycle benchmark with each on a real containerd stack, which is gone afterwards.
// From git: a checkout (made here from that tarball, libocispec as its submodule) is refused
// naming the fix while its submodule is missing, and built once it is there.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema } from '@runtime-bench/schemas';
import type { InstallRecord } from '../../src/install/record.ts';
import { stackCgroup } from '../../src/stack/shim-cgroups.ts';
import { runCli } from '../support/cli.ts';
import {
  cgroupsNamed,
  mountsUnder,
  onPath,
  processesUnder,
  realStackUnavailable,
  testStackName,
} from '../support/host.ts';

const run = promisify(execFile);
const ARCHIVE = 'http://deb.debian.org/debian/pool/main/c/crun';
const TARBALL = 'crun_1.21.orig.tar.gz';
const DEPS = ['libseccomp-dev', 'libcap-dev', 'libsystemd-dev', 'libyajl-dev', 'pkg-config', 'gcc', 'make'];

const installed = async (pkg: string) =>
  run('dpkg-query', ['-W', '-f', '${Status}', pkg]).then(
    (r) => r.stdout.includes('install ok installed'),
    () => false,
  );
const missing = (await Promise.all(DEPS.map(async (d) => ((await installed(d)) ? null : d)))).filter(Boolean);
const archive = await fetch(`${ARCHIVE}/${TARBALL}`, { method: 'HEAD' }).then(
  (r) => (r.ok ? null : `${ARCHIVE}/${TARBALL}: HTTP ${r.status}`),
  (e: unknown) => `${ARCHIVE} unreachable: ${String(e)}`,
);
const unavailable =
  realStackUnavailable() ??
  (missing.length > 0 ? `needs ${missing.join(' ')} (scripts/setup-test.sh)` : null) ??
  archive ??
  (onPath('apt-get') ? null : 'needs apt-get');
if (unavailable) console.warn(`SKIPPED crun build test: ${unavailable}`);
const gitUnavailable =
  unavailable ??
  ((await Promise.all(['autoconf', 'automake', 'libtool', 'gperf', 'git'].map(installed))).includes(false)
    ? 'needs autoconf automake libtool gperf git'
    : null);

// Explicit budgets for a loaded 2-core machine, none a measurement: a build is ≈ 30 s from the
// tarball (≈ 2 min from a checkout, autoreconf included); the sweep adds one build, a stack with
// its image builds and 2 × 4 lifecycle runs.
const BUILD_BUDGET_MS = 10 * 60_000;
const SWEEP_BUDGET_MS = 30 * 60_000;

const STACK = testStackName('crun-src');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;

describe.skipIf(unavailable !== null)('crun from the Debian source package', () => {
  let work: string;
  let prefix: string;
  let tarball: Buffer;

  beforeAll(async () => {
    work = await mkdtemp('/var/tmp/rb-crun-');
    prefix = join(work, 'opt');
    tarball = Buffer.from(await (await fetch(`${ARCHIVE}/${TARBALL}`)).arrayBuffer());
  }, 120_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test(
    'install crun@1.21 builds it from the tarball the test hashes itself; crun --version names that version and commit',
    { timeout: BUILD_BUDGET_MS },
    async () => {
      const r = await runCli([
        'install',
        '--source',
        'debian-source',
        '--prefix',
        prefix,
        '--state',
        join(work, 'install.json'),
        '--json',
        'crun@1.21',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const record = JSON.parse(r.stdout) as InstallRecord;
      const crun = record.components[0]!;
      const sha256 = createHash('sha256').update(tarball).digest('hex');
      // The commit as the tarball's .tarball-git-version.h holds it, read with tar, not our parser.
      const headerText = await headerFromTarball(work, tarball);
      const commit = /"([0-9a-f]{40})"/.exec(headerText)![1]!;
      expect(crun.build?.source).toBe('debian-source');
      expect(crun.build?.origin).toContain(`sha256:${sha256}`);
      expect(crun.build?.origin).toContain(`${ARCHIVE}/${TARBALL}`);
      expect(crun.build?.commit).toBe(commit);
      expect(crun.build?.notes.join('\n')).toMatch(/dynamically linked.*static nix build/);
      expect(crun.dir).toMatch(/\/crun\/1\.21\+gcc-\d+(\.\d+)*$/);
      const { stdout } = await run(crun.binaries.crun!, ['--version']);
      expect(stdout).toMatch(/^crun version 1\.21\n/);
      expect(stdout).toContain(`commit: ${commit}\n`);
      expect(record.handlers).toEqual([{ name: 'crun-1.21', binary: crun.binaries.crun, kind: 'crun' }]);
    },
  );

  test(
    'a sweep over 1.8.1..1.21 from debian-source runs the lifecycle with each on a containerd stack; nothing left',
    { timeout: SWEEP_BUDGET_MS },
    async () => {
      const config = join(work, 'sweep.yaml');
      await writeFile(
        config,
        'name: crun-source\nbenchmarks: [operations.container.lifecycle]\nruns: 3\nwarmup: 1\n',
      );
      const out = join(work, 'result.json');
      const r = await runCli([
        'sweep',
        'crun@1.8.1..1.21',
        '--source',
        'debian-source',
        '--prefix',
        prefix,
        '--stack',
        STACK,
        '--config',
        config,
        '--state',
        join(work, 'sweep.json'),
        '--out',
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      // 1.21 was built by the test before: the cache, not a second download.
      expect(r.stderr).toMatch(/crun 1\.21: built before with gcc-/);
      const result = RunResultSchema.parse(JSON.parse(await readFile(out, 'utf8')));
      expect(result.status).toBe('complete');
      expect(result.targets.map((t) => [t.handler, t.oci.name, t.oci.version])).toEqual([
        ['crun-1.8.1', 'crun', '1.8.1'],
        ['crun-1.21', 'crun', '1.21'],
      ]);
      for (const t of result.targets) {
        const lifecycle = result.results.find(
          (x) => x.target === t.id && x.benchmark === 'operations.container.lifecycle',
        )!;
        expect(lifecycle.status).toBe('ok');
        expect(lifecycle.metrics.find((m) => m.name === 'StartContainer')!.samples).toHaveLength(3);
      }
      const cruns = result.components.filter((c) => c.role === 'oci');
      expect(cruns.map((c) => [c.version, c.build?.source])).toEqual([
        ['1.8.1', 'debian-source'],
        ['1.21', 'debian-source'],
      ]);
      expect(processesUnder(STATE_DIR)).toEqual([]);
      expect(mountsUnder(STATE_DIR)).toEqual([]);
      expect(cgroupsNamed(stackCgroup(STACK))).toEqual([]);
    },
  );
});

/** .tarball-git-version.h out of the gzip tarball, through tar. */
async function headerFromTarball(work: string, tarball: Buffer): Promise<string> {
  const file = join(work, TARBALL);
  await writeFile(file, tarball);
  return (await run('tar', ['-xzOf', file, 'crun-1.21/.tarball-git-version.h'])).stdout;
}

describe.skipIf(gitUnavailable !== null)('crun from a git checkout', () => {
  let work: string;
  const git = (cwd: string, ...args: string[]) =>
    run('git', ['-C', cwd, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'test',
        GIT_AUTHOR_EMAIL: 'test@example.invalid',
        GIT_COMMITTER_NAME: 'test',
        GIT_COMMITTER_EMAIL: 'test@example.invalid',
      },
    });

  beforeAll(async () => {
    // A checkout shaped as crun's: its tree (the 1.21 tarball's, less the files `make dist`
    // adds), libocispec a submodule pinned by the commit; and a clone that never fetched it.
    work = await mkdtemp('/var/tmp/rb-crun-git-');
    const tarball = Buffer.from(await (await fetch(`${ARCHIVE}/${TARBALL}`)).arrayBuffer());
    await writeFile(join(work, TARBALL), tarball);
    await run('tar', ['-xzf', join(work, TARBALL), '-C', work]);
    await run('mv', [join(work, 'crun-1.21'), join(work, 'crun')]);
    await run('mv', [join(work, 'crun', 'libocispec'), join(work, 'libocispec')]);
    await rm(join(work, 'crun', '.tarball-version'));
    await rm(join(work, 'crun', '.tarball-git-version.h'));
    await git(join(work, 'libocispec'), 'init', '-q');
    await git(join(work, 'libocispec'), 'add', '-A');
    await git(join(work, 'libocispec'), 'commit', '-qm', 'libocispec');
    await git(join(work, 'crun'), 'init', '-q');
    await git(join(work, 'crun'), 'add', '-A');
    await git(
      join(work, 'crun'),
      '-c',
      'protocol.file.allow=always',
      'submodule',
      'add',
      '-q',
      join(work, 'libocispec'),
      'libocispec',
    );
    await git(join(work, 'crun'), 'commit', '-qm', 'crun');
    await git(join(work, 'crun'), 'tag', '1.21');
    await run('git', ['clone', '-q', join(work, 'crun'), join(work, 'clone')]);
  }, 120_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const install = (gitDir: string) =>
    runCli([
      'install',
      '--source',
      'git',
      '--git-dir',
      gitDir,
      '--prefix',
      join(work, 'opt'),
      '--state',
      join(work, `install-${Date.now()}.json`),
      '--json',
      'crun@1.21',
    ]);

  test('a clone without its libocispec submodule is refused, naming the submodule and the fix', async () => {
    const r = await install(join(work, 'clone'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/submodule libocispec \([0-9a-f]{12}\) is not checked out/);
    expect(r.stderr).toContain(`submodule update --init --recursive`);
  });

  test(
    'a tag with its submodule builds; crun --version names the tag and the commit',
    { timeout: BUILD_BUDGET_MS },
    async () => {
      const hash = (await git(join(work, 'crun'), 'rev-parse', 'HEAD')).stdout.trim();
      const r = await install(join(work, 'crun'));
      expect(r.code, r.stderr).toBe(0);
      const crun = (JSON.parse(r.stdout) as InstallRecord).components[0]!;
      expect(crun.version).toBe(`1.21-g${hash.slice(0, 12)}`);
      expect(crun.build?.source).toBe('git');
      expect(crun.build?.commit).toBe(hash);
      const { stdout } = await run(crun.binaries.crun!, ['--version']);
      expect(stdout).toMatch(/^crun version 1\.21\n/);
      expect(stdout).toContain(`commit: ${hash}\n`);
    },
  );
});
