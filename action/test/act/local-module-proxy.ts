// A Go module proxy on disk (GOPROXY=file://…) serving runc releases cut from a local git clone:
// what proxy.golang.org serves a user's runner for github.com/opencontainers/runc, with tags the
// test makes (a harmless release, then one with a planted slow commit). Each version's `.info`
// names its origin (the clone, as a file:// URL, and the tag's commit), as the real proxy's does,
// so that a bisection can clone it. Module zips as the proxy makes them: only the files, under
// `<module>@<version>/`, without directory entries.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const RUNC_MODULE = 'github.com/opencontainers/runc';
/** The host's Go: RB_GO, else where setup puts it, else go on PATH. */
export const GO = process.env.RB_GO ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go');

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'loop test',
  GIT_AUTHOR_EMAIL: 'loop@example.invalid',
  GIT_COMMITTER_NAME: 'loop test',
  GIT_COMMITTER_EMAIL: 'loop@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

export const gitIn = async (dir: string, ...args: string[]): Promise<string> =>
  (await exec('git', ['-C', dir, ...args], { env: gitEnv, maxBuffer: 64 << 20 })).stdout.trim();

/** The module source of `version` through the host's Go (its module cache, else its proxy). */
export async function moduleDir(module: string, version: string): Promise<string> {
  const { stdout } = await exec(GO, ['mod', 'download', '-json', `${module}@${version}`], {
    cwd: '/',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  });
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}

/** Adds `version` (a tag of `repo`) to the proxy at `proxy`, and lists it. */
export async function publishVersion(proxy: string, repo: string, version: string): Promise<void> {
  const dir = join(proxy, RUNC_MODULE, '@v');
  await mkdir(dir, { recursive: true });
  const hash = await gitIn(repo, 'rev-parse', `${version}^{commit}`);
  const time = await gitIn(repo, 'log', '-1', '--format=%cI', hash);
  await writeFile(
    join(dir, `${version}.info`),
    JSON.stringify({
      Version: version,
      Time: new Date(time).toISOString(),
      Origin: { VCS: 'git', URL: `file://${repo}`, Hash: hash, Ref: `refs/tags/${version}` },
    }),
  );
  await writeFile(
    join(dir, `${version}.mod`),
    await gitIn(repo, 'show', `${version}:go.mod`).then((t) => `${t}\n`),
  );
  // The files of the tag under <module>@<version>/, zipped without directory entries.
  const stage = join(proxy, '.stage');
  await rm(stage, { recursive: true, force: true });
  const root = join(stage, `${RUNC_MODULE}@${version}`);
  await mkdir(root, { recursive: true });
  await exec('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', repo, version, root]);
  await exec('zip', ['-q', '-r', '-D', '-X', join(dir, `${version}.zip`), `${RUNC_MODULE}@${version}`], {
    cwd: stage,
  });
  await rm(stage, { recursive: true, force: true });
  const list = join(dir, 'list');
  const listed = (await readFile(list, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  await writeFile(list, `${[...new Set([...listed, version])].join('\n')}\n`);
}
