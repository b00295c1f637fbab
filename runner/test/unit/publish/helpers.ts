// Real git repositories in temp dirs for the publishing tests: a bare "remote", clones of it, and
// the real CLI started as a child process.
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, lstat, mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '@runtime-bench/schemas';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { createGitRunner, gitEnvironment, type GitRunner } from '../../../src/publish/git.ts';

export const NODE = '/usr/local/bin/node';
export const CLI = fileURLToPath(new URL('../../../bin/runtime-bench.js', import.meta.url));
export const WORKSPACE_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The environment every git and CLI process gets: no global or system git config (so nothing
 * works only because this machine has an identity configured) and no token unless a test adds one.
 */
export function isolatedEnv(root: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.RB_PUBLISH_TOKEN;
  delete env.GITHUB_TOKEN;
  for (const key of Object.keys(env)) if (key.startsWith('GIT_CONFIG_')) delete env[key];
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(root, 'empty-gitconfig'),
    HOME: root,
    ...extra,
  };
}

export interface Sandbox {
  root: string;
  bare: string;
  env: NodeJS.ProcessEnv;
  git: GitRunner;
  /** Runs git and returns trimmed stdout; throws with stderr on failure. */
  sh(cwd: string, ...args: string[]): Promise<string>;
  /** A new clone of the bare remote with one commit on its main branch. */
  clone(name: string): Promise<string>;
  /** Writes a result as JSON into the sandbox and returns its path. */
  writeResult(name: string, result: RunResult | unknown, indent?: number): Promise<string>;
  cleanup(): Promise<void>;
}

export async function createSandbox(): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), 'rbtest-publish-'));
  await writeFile(join(root, 'empty-gitconfig'), '');
  const env = isolatedEnv(root);
  const git = createGitRunner(gitEnvironment(env));
  const sh = async (cwd: string, ...args: string[]) => {
    const r = await git.run(args, { cwd });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  const bare = join(root, 'remote.git');
  await sh(root, 'init', '--quiet', '--bare', bare);
  // The remote's main branch has one commit, like any real project's.
  const seed = join(root, 'seed');
  await sh(root, 'init', '--quiet', '--initial-branch=main', seed);
  await writeFile(join(seed, 'README.md'), 'the project\n');
  await sh(seed, 'add', 'README.md');
  await sh(
    seed,
    '-c',
    'user.name=Seed',
    '-c',
    'user.email=seed@example.invalid',
    'commit',
    '--quiet',
    '-m',
    'init',
  );
  await sh(seed, 'push', '--quiet', bare, 'main');
  await sh(bare, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  return {
    root,
    bare,
    env,
    git,
    sh,
    async clone(name) {
      const dir = join(root, name);
      await sh(root, 'clone', '--quiet', bare, dir);
      return dir;
    },
    async writeResult(name, result, indent = 2) {
      const path = join(root, 'results', name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, JSON.stringify(result, null, indent));
      return path;
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** A valid result with its own run id; `n` also moves startedAt so runs land on different days. */
export function resultNumber(n: number, overrides: Partial<RunResult> = {}): RunResult {
  const day = String(1 + (n % 28)).padStart(2, '0');
  const hex = (0x1000 + n).toString(16).padStart(8, '0');
  return sampleRunResult({
    runId: `202611${day}T080000Z-${hex}`,
    startedAt: `2026-11-${day}T08:00:00.000Z`,
    finishedAt: `2026-11-${day}T08:01:00.000Z`,
    ...overrides,
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (node runner/bin/runtime-bench.js) to completion. */
export function runCli(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(NODE, [CLI, ...args], { cwd: options.cwd, env: options.env }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** Starts several CLI processes at once: all are spawned before any is awaited. */
export function runCliConcurrently(
  runs: readonly { args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv }[],
): Promise<CliResult[]> {
  return Promise.all(
    runs.map(
      (run) =>
        new Promise<CliResult>((resolve, reject) => {
          const child = spawn(NODE, [CLI, ...run.args], { cwd: run.cwd, env: run.env });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
          child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stdout, stderr }));
        }),
    ),
  );
}

export interface SmartHttpServer {
  /** Base URL, e.g. http://127.0.0.1:PORT/ — repositories are under it by path. */
  url: string;
  /** The Authorization header of every request, in order (undefined when absent). */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * Serves the repositories under `projectRoot` over git's smart HTTP protocol through the real
 * `git http-backend` CGI, answering 401 unless the request carries `requiredAuthorization`.
 */
export async function startSmartHttpServer(
  projectRoot: string,
  requiredAuthorization: string,
  env: NodeJS.ProcessEnv,
): Promise<SmartHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== requiredAuthorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="runtime-bench test"' });
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const child = spawn('git', ['http-backend'], {
      env: {
        ...env,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        // An authenticated user: http-backend only enables receive-pack (push) for one.
        REMOTE_USER: 'publisher',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.resume();
    req.pipe(child.stdin);
    child.on('close', () => {
      const all = Buffer.concat(out);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('utf8').split('\r\n');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(all.subarray(split + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A 127.0.0.1 port nothing listens on (bound once by us, then released). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every file under `dir` (recursively) whose bytes contain any of `needles`. */
export async function filesContaining(dir: string, needles: readonly string[]): Promise<string[]> {
  const hits: string[] = [];
  for (const name of await readdir(dir, { recursive: true })) {
    const full = join(dir, name);
    const info = await lstat(full);
    if (!info.isFile()) continue;
    const bytes = await readFile(full);
    if (needles.some((n) => bytes.includes(n))) hits.push(full);
  }
  return hits;
}

/**
 * Pushes a data branch (`benchmark-data`) to the sandbox's bare remote in one commit: a copy of a
 * data/runs directory (`runsFrom`, e.g. the repository's real runs) and `files` (path → text).
 */
export async function pushDataBranch(
  box: Sandbox,
  files: Record<string, string> = {},
  runsFrom?: string,
): Promise<void> {
  const work = join(box.root, 'data-branch');
  await box.sh(box.root, 'init', '--quiet', '--initial-branch=benchmark-data', work);
  if (runsFrom !== undefined) await cp(runsFrom, join(work, 'data', 'runs'), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), text);
  }
  await box.sh(work, 'add', '.');
  await box.sh(
    work,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.invalid',
    'commit',
    '--quiet',
    '-m',
    'runs',
  );
  await box.sh(work, 'push', '--quiet', box.bare, 'benchmark-data');
}
