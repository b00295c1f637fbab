// Where a bisection gets its commits when it was given no clone: the repository the Go module
// proxy names as the bad release's origin (the `.info` answer's Origin.URL, e.g.
// https://github.com/opencontainers/runc). Kept as a bare clone under the prefix, beside the
// builds it feeds: the next bisection (or this one resumed) fetches instead of cloning again.
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RbError } from '../errors.ts';
import { buildEnv } from '../install/go-toolchain.ts';
import { GO_RECIPES, moduleFor } from '../install/build-recipe.ts';
import {
  ModuleDownloadSchema,
  moduleOriginUrl,
  proxyInfoUrls,
  type InfoAnswer,
} from '../install/module-source.ts';
import { exec } from '../util/exec.ts';

/** The clone of a component's origin under the prefix. */
export const originClonePath = (prefix: string, component: string): string =>
  join(prefix, 'sources', `${component}.git`);

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** The origin URL of `component@version` as the module proxy answers (go mod download, `.info`). */
export async function originUrl(component: string, version: string): Promise<string> {
  const recipe = (GO_RECIPES as Record<string, (typeof GO_RECIPES)[keyof typeof GO_RECIPES]>)[component];
  if (!recipe) throw new RbError('USAGE_BISECT_COMPONENT', `${component} has no Go module to clone`);
  const module = moduleFor(recipe, version);
  const query = /^\d+\.\d+/.test(version) ? `v${version}` : version;
  const go = (args: string[]) =>
    exec('go', args, { env: buildEnv({ GOFLAGS: '-mod=mod' }), cwd: '/', allowFailure: true });
  const r = await go(['mod', 'download', '-json', `${module}@${query}`]);
  const parsed = ModuleDownloadSchema.safeParse(JSON.parse(r.stdout || '{}'));
  const download = parsed.success ? parsed.data : {};
  const infos: InfoAnswer[] = [
    {
      source: download.Info ?? 'the module cache',
      text: download.Info ? await readFile(download.Info, 'utf8').catch(() => null) : null,
    },
  ];
  const env = await go(['env', 'GOPROXY']);
  for (const url of proxyInfoUrls(env.stdout.trim(), module, query)) {
    const text = await fetch(url)
      .then((res) => (res.ok ? res.text() : null))
      .catch(() => null);
    infos.push({ source: url, text });
    if (text !== null) break;
  }
  const found = moduleOriginUrl({ Path: module, Version: query, ...download }, infos);
  if (found.url === null)
    throw new RbError(
      'BISECT_NO_ORIGIN',
      `cannot bisect the commits of ${component} ${version}: ${found.note}`,
      `give a clone: --git-dir <checkout of ${component}>`,
    );
  return found.url;
}

/**
 * A bare clone of `url` at `path`, up to date with its tags: cloned into a temporary name and
 * renamed when complete (a killed clone is never taken for one), or fetched when it exists.
 */
export async function updatedClone(url: string, path: string, log: (line: string) => void): Promise<string> {
  if (await exists(join(path, 'HEAD'))) {
    log(`fetching ${url} into ${path}`);
    await exec('git', [
      '-C',
      path,
      'fetch',
      '--quiet',
      '--prune',
      '--tags',
      url,
      '+refs/heads/*:refs/heads/*',
    ]);
    return path;
  }
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}`;
  await rm(temp, { recursive: true, force: true });
  log(`cloning ${url} into ${path}`);
  try {
    await exec('git', ['clone', '--quiet', '--bare', '--', url, temp]);
    await rename(temp, path);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return path;
}
