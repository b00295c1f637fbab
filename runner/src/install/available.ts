// `runtime-bench versions`: what a source can provide of a component, newest first. The listing
// parsers and the range selection are pure; the one go/git call is made through the injected env.
import { RbError, errorMessage } from '../errors.ts';
import { readFile } from 'node:fs/promises';
import { GO_RECIPES, buildRefusal, goRecipe, moduleFor, recipeFor, recipeModules } from './build-recipe.ts';
import { offeredVersions } from './debian-source.ts';
import { debianSourceOffers } from './debian-source-fetch.ts';
import { localReplacementModules } from './go-imports.ts';
import { buildEnv } from './go-toolchain.ts';
import type { ComponentName, Source } from './components.ts';
import type { InstallEnv } from './env.ts';
import { DEFAULT_PREFIX, DEFAULT_SUITES } from './plan.ts';
import { compareSemver, inRange, isSemver } from './semver.ts';

/** Versions of a `go list -m -versions <module>` line (`module v1.1.5 v1.2.3 …`), newest first, without `v`. */
export function parseGoVersions(text: string): string[] {
  const [, ...versions] = text.trim().split(/\s+/);
  return versions
    .map((v) => v.replace(/^v/, ''))
    .filter(isSemver)
    .sort((a, b) => compareSemver(b, a));
}

/** Release tags of `git tag` output (`v1.2.0`, not `libcontainer/v0.1`), newest first, without `v`. */
export function parseGitTags(text: string): string[] {
  return parseGoVersions(`tags ${text}`);
}

/**
 * The versions of a sweep range `1.1.5..1.5.2` among the available ones (both ends included),
 * oldest first; pre-releases only when an end is one. An end nobody provides is an error.
 */
export function selectRange(available: readonly string[], from: string, to: string): string[] {
  for (const [end, v] of [
    ['start', from],
    ['end', to],
  ] as const)
    if (!available.includes(v))
      throw new RbError(
        'USAGE_SWEEP',
        `the range's ${end} ${v} is not among the available versions`,
        `available: ${[...available].slice(0, 12).join(', ')}${available.length > 12 ? ', …' : ''}`,
      );
  if (compareSemver(from, to) > 0)
    throw new RbError('USAGE_SWEEP', `range ${from}..${to} runs backwards`, `write ${to}..${from}`);
  const withPre = from.includes('-') || to.includes('-');
  return available
    .filter((v) => inRange(v, { since: from }) && compareSemver(v, to) <= 0)
    .filter((v) => withPre || !v.includes('-'))
    .sort(compareSemver);
}

/** The newest release of each minor (`2.0.14`, `2.1.9`, …), in the order given; pre-releases left out. */
export function newestPerMinor(versions: readonly string[]): string[] {
  const best = new Map<string, string>();
  for (const v of versions) {
    if (v.includes('-')) continue;
    const minor = v.split('.').slice(0, 2).join('.');
    const seen = best.get(minor);
    if (seen === undefined || compareSemver(v, seen) > 0) best.set(minor, v);
  }
  const keep = new Set(best.values());
  return versions.filter((v) => keep.has(v));
}

/** What a source provides of a component, newest first. */
export async function availableVersions(
  env: InstallEnv,
  component: ComponentName,
  source: Source,
  options: { gitDir?: string; prefix?: string; suites?: readonly string[]; debianMirror?: string } = {},
): Promise<string[]> {
  if (source === 'debian-source') {
    const refusal = buildRefusal(component, source);
    if (refusal) throw new RbError('USAGE_SOURCE', `${component}: ${refusal}`);
    const offers = await debianSourceOffers(env, component, {
      prefix: options.prefix ?? DEFAULT_PREFIX,
      suites: options.suites ?? DEFAULT_SUITES,
      ...(options.debianMirror ? { mirror: options.debianMirror } : {}),
    });
    return offeredVersions(offers);
  }
  if (source === 'go') {
    const versions: string[] = [];
    // One module per major (`…/containerd` holds 1.x, `…/containerd/v2` 2.x).
    for (const module of recipeModules(goRecipe(component))) {
      try {
        const r = await env.run('go', ['list', '-m', '-versions', module], {
          cwd: '/',
          // go's own locations only, as the builds get (never our credentials)
          env: buildEnv({ GOFLAGS: '-mod=mod' }),
        });
        versions.push(...parseGoVersions(r.stdout));
      } catch (error) {
        throw new RbError(
          'VERSIONS_UNAVAILABLE',
          `cannot list ${module}: ${errorMessage(error)}`,
          'check GOPROXY',
        );
      }
    }
    return [...new Set(versions)].sort((a, b) => compareSemver(b, a));
  }
  if (source === 'git') {
    if (!options.gitDir) throw new RbError('USAGE_GIT_DIR', 'the git source needs --git-dir <checkout>');
    const r = await env.run('git', ['-C', options.gitDir, 'tag', '--list']);
    return parseGitTags(r.stdout);
  }
  throw new RbError(
    'USAGE_SOURCE',
    `listing the versions of source "${source}" is not supported`,
    "list the go, git or debian-source source (release versions are named on the project's release page)",
  );
}

/**
 * Why `version` of `component` cannot be built from `source`, as the recipe says without
 * fetching anything (runc 1.5+ needs libpathrs), or null: the build sources only.
 */
export function recipeRefusal(component: ComponentName, version: string, source: Source): string | null {
  if (source !== 'go' && source !== 'git' && source !== 'debian-source') return null;
  const refusal = buildRefusal(component, source);
  if (refusal) return refusal;
  const recipe = GO_RECIPES[component];
  // crun's recipe builds every version its sources offer.
  if (!recipe && component === 'crun') return null;
  if (!recipe) return `no build recipe for ${component}`;
  // A ref of a checkout that names no release (a commit, a branch) has no version to look its
  // recipe up by: the build reads it from the tree at that ref (tree-recipe.ts).
  if (source === 'git' && !isSemver(version.replace(/^v/, ''))) return null;
  return recipeFor(recipe, version).unsupported;
}

/**
 * The directories a version's go.mod replaces modules with (`=> ./internal/third_party/selinux`),
 * read from the module proxy (`go list -m -json` fetches the .mod alone): the proxy's copy leaves
 * those nested modules out, so such a version likely builds only from a git checkout. null when
 * the proxy cannot be asked.
 */
export async function proxyLocalReplacements(
  env: InstallEnv,
  component: ComponentName,
  version: string,
): Promise<string[] | null> {
  const recipe = GO_RECIPES[component];
  if (!recipe) return null;
  try {
    const r = await env.run('go', ['list', '-m', '-json', `${moduleFor(recipe, version)}@v${version}`], {
      cwd: '/',
      env: buildEnv({ GOFLAGS: '-mod=mod' }),
    });
    const { GoMod } = JSON.parse(r.stdout) as { GoMod?: string };
    if (!GoMod) return null;
    return localReplacementModules(await readFile(GoMod, 'utf8')).map((m) => m.dir);
  } catch {
    return null;
  }
}
