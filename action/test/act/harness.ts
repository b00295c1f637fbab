// The act test's harness: a caller repository and the action's repository as local git
// repositories, the tagged release tree, and `act` run on this host with the test stand-ins for
// remote actions (stand-ins/README.md). Only loopback receives traffic: act's artifact server
// binds 127.0.0.1 and its cache server is off.
import { execFile, spawn } from 'node:child_process';
import { access, cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const repoRoot = join(import.meta.dirname, '../../..');
export const standIns = join(import.meta.dirname, 'stand-ins');
export const ACTION_REPO = 'runtime-bench/runtime-bench';
export const CALLER_REPO = 'bench-user/nightly';

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'act test',
  GIT_AUTHOR_EMAIL: 'act-test@localhost',
  GIT_COMMITTER_NAME: 'act test',
  GIT_COMMITTER_EMAIL: 'act-test@localhost',
  GIT_CONFIG_NOSYSTEM: '1',
};
export const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await exec('git', args, { cwd, env: { ...gitEnv, HOME: cwd }, maxBuffer: 64 << 20 })).stdout.trim();

/** A free loopback port for act's artifact server. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Copies the files git would commit from this checkout (tracked and untracked, not ignored). */
export async function copyWorkTree(dest: string): Promise<void> {
  const files = (await git(repoRoot, 'ls-files', '-z', '-c', '-o', '--exclude-standard'))
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    await mkdir(dirname(join(dest, f)), { recursive: true });
    await cp(join(repoRoot, f), join(dest, f), { dereference: false, force: true }).catch((e: unknown) => {
      // A file deleted in the work tree but still tracked is simply not part of the release.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    });
  }
}

export interface Repos {
  /** Bare repositories by owner/name, as the checkout stand-in finds them ($RB_STANDIN_GIT). */
  gitBase: string;
  /** The action's tree at tag v1, which `uses: runtime-bench/runtime-bench/...@v1` resolves to. */
  actionV1: string;
  releaseLog: string;
  /** act's working directory: a clone of the caller repository. */
  workspace: string;
}

/**
 * The action repository released by scripts/release.sh (tags v1.0.0 and v1), and a caller
 * repository holding workflows/<caller> verbatim as .github/workflows/<caller> (nightly.yml unless
 * told otherwise).
 */
export async function prepareRepos(
  tmp: string,
  callerFiles: Record<string, string>,
  caller = 'nightly.yml',
): Promise<Repos> {
  const gitBase = join(tmp, 'git');
  const src = join(tmp, 'action-src');
  await copyWorkTree(src);
  await git(src, 'init', '-q', '-b', 'main');
  await git(src, 'add', '-A');
  await git(src, 'commit', '-q', '-m', 'the tree under test');
  const release = await exec('bash', ['scripts/release.sh', 'v1.0.0'], {
    cwd: src,
    env: { ...gitEnv, PATH: `/usr/local/bin:${process.env.PATH}` },
    maxBuffer: 64 << 20,
  });
  const actionBare = join(gitBase, `${ACTION_REPO}.git`);
  await git(tmp, 'clone', '-q', '--bare', src, actionBare);
  const actionV1 = join(tmp, 'action-v1');
  await git(tmp, 'clone', '-q', '--branch', 'v1', actionBare, actionV1);

  const callerSrc = join(tmp, 'caller-src');
  await mkdir(join(callerSrc, '.github/workflows'), { recursive: true });
  await cp(join(repoRoot, 'workflows', caller), join(callerSrc, '.github/workflows', caller));
  for (const [path, text] of Object.entries(callerFiles)) {
    await mkdir(dirname(join(callerSrc, path)), { recursive: true });
    await writeFile(join(callerSrc, path), text);
  }
  await git(callerSrc, 'init', '-q', '-b', 'main');
  await git(callerSrc, 'add', '-A');
  await git(callerSrc, 'commit', '-q', '-m', 'caller');
  const callerBare = join(gitBase, `${CALLER_REPO}.git`);
  await git(tmp, 'clone', '-q', '--bare', callerSrc, callerBare);
  const workspace = join(tmp, 'workspace');
  await git(tmp, 'clone', '-q', callerBare, workspace);
  return { gitBase, actionV1, releaseLog: release.stdout + release.stderr, workspace };
}

/** `uses: owner/name@ref` lines of a workflow, for the stand-ins' --local-repository. */
export async function remoteRefs(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(/uses:\s*(actions\/[\w-]+@[0-9a-f]{40})/g)].map((m) => m[1]!);
}

export interface ActRun {
  code: number | null;
  log: string;
  seconds: number;
}

/** Runs `act workflow_dispatch` on the host with the stand-ins; resolves with its exit code and log. */
export async function runAct(opts: {
  tmp: string;
  repos: Repos;
  night: string;
  vars: Record<string, string>;
  timeoutMs: number;
  /** Directories put before PATH on the runner (the host), as a machine with extra tools has. */
  pathDirs?: string[];
  /** The caller workflow in .github/workflows/ (default nightly.yml). */
  workflow?: string;
  /** Repository secrets; handed to act through its environment (`-s NAME`), never on its command line. */
  secrets?: Record<string, string>;
  /** Extra environment of the jobs (`--env`). */
  env?: Record<string, string>;
}): Promise<ActRun> {
  const { tmp, repos, night } = opts;
  const home = join(tmp, 'home');
  await mkdir(home, { recursive: true });
  const wf = join(repoRoot, '.github/workflows/runtime-bench.yml');
  const refs = [...new Set(await remoteRefs(wf))];
  const standInDir: Record<string, string> = {
    'actions/checkout': 'checkout',
    'actions/upload-artifact': 'upload-artifact',
    'actions/download-artifact': 'download-artifact',
    'actions/setup-node': 'setup-node',
  };
  const store = (await exec('pnpm', ['store', 'path'], { env: { ...process.env } })).stdout.trim();
  const args = [
    'workflow_dispatch',
    '-W',
    `.github/workflows/${opts.workflow ?? 'nightly.yml'}`,
    ...['self-hosted', 'linux', 'x64', 'ubuntu-latest'].flatMap((l) => ['-P', `${l}=-self-hosted`]),
    '--local-repository',
    `${ACTION_REPO}@v1=${repos.actionV1}`,
    ...refs.flatMap((r) => ['--local-repository', `${r}=${join(standIns, standInDir[r.split('@')[0]!]!)}`]),
    '--artifact-server-path',
    join(tmp, `artifacts-${night}`),
    '--artifact-server-addr',
    '127.0.0.1',
    '--artifact-server-port',
    String(await freePort()),
    '--no-cache-server',
    '--concurrent-jobs',
    '1',
    '--env',
    `GITHUB_REPOSITORY=${CALLER_REPO}`,
    '--env',
    `RB_STANDIN_GIT=${repos.gitBase}`,
    '--env',
    `RB_STANDINS=${standIns}`,
    // The runner's pnpm store (HOME is act's temp home here): what a warm runner has.
    '--env',
    `npm_config_store_dir=${store}`,
    ...Object.entries(opts.vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]),
    ...Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ...Object.keys(opts.secrets ?? {}).flatMap((k) => ['-s', k]),
  ];
  const env = {
    ...process.env,
    // Host jobs inherit act's environment, so the `path` source searches these directories too.
    PATH: [...(opts.pathDirs ?? []), '/usr/local/bin', process.env.PATH].join(':'),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    ...opts.secrets,
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('act', args, { cwd: repos.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      writeFile(join(tmp, `act-${night}.log`), log).then(() => resolve({ code, log, seconds }), reject);
    });
  });
}

/** Builds the site from a data directory (a data branch's `data/`) into `out`. */
export async function buildSite(dataDir: string, out: string): Promise<void> {
  await exec('pnpm', ['--filter', '@runtime-bench/site', 'exec', 'astro', 'build', '--outDir', out], {
    cwd: repoRoot,
    env: { ...process.env, RB_DATA_DIR: dataDir, ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 64 << 20,
  });
}

/** What a stack left on this host: its state directory, mounts below it, processes naming it. */
export async function stackLeftovers(
  stack: string,
): Promise<{ stateDir: boolean; mounted: boolean; processes: string[] }> {
  const mounts = await readFile('/proc/self/mountinfo', 'utf8');
  const cmdlines = await Promise.all(
    (await readdir('/proc'))
      .filter((p) => /^\d+$/.test(p))
      .map((p) => readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')),
  );
  return {
    stateDir: await access(`/var/lib/runtime-bench/stacks/${stack}`).then(
      () => true,
      () => false,
    ),
    mounted: mounts.includes(`/stacks/${stack}/`),
    // containerd, crio, their shims and conmon all name the stack's directory on their command line.
    processes: cmdlines.filter((c) => c.includes(`/stacks/${stack}/`)),
  };
}
