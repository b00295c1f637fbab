// The Go a build runs with: the environment of every go command of a build, and the choice of
// toolchain (the release's Dockerfile, and for a tree read as its own recipe its go.mod too). The
// choice itself is pure (build-recipe.ts pickToolchain, tree-recipe.ts treeToolchain); this
// asks the machine's go and the module proxy's toolchain listing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dockerfileGoVersion, pickToolchain } from './build-recipe.ts';
import { archNames } from './components.ts';
import type { InstallEnv } from './env.ts';
import type { GoRecipe } from './go-recipe.ts';
import { goModRequirement, treeToolchain } from './tree-recipe.ts';

/** The environment builds run with: explicit, the Go locations of this user and nothing else. */
export function buildEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const keep = [
    'PATH',
    'HOME',
    'GOPATH',
    'GOMODCACHE',
    'GOCACHE',
    'GOPROXY',
    'GONOSUMDB',
    'GOSUMDB',
    'GOPRIVATE',
  ];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  env.PATH = `/usr/local/go/bin:${env.PATH ?? '/usr/bin:/bin'}`;
  return { ...env, LANG: 'C', ...extra };
}

export async function goJson(
  env: InstallEnv,
  args: string[],
  extra: Record<string, string> = {},
): Promise<unknown> {
  const r = await env.run('go', args, { env: buildEnv({ GOFLAGS: '-mod=mod', ...extra }), cwd: '/' });
  return JSON.parse(r.stdout);
}

/**
 * The Go the release's Dockerfile names (`go1.25.12`, or the newest patch of `1.22`), else the
 * local go; with a note when the proxy does not serve the exact patch named. A tree read as its
 * own recipe (`ownTree`) also answers to its go.mod (tree-recipe.ts treeToolchain), and `rule`
 * says where its Go came from.
 */
export async function chooseToolchain(
  env: InstallEnv,
  recipe: GoRecipe,
  root: string,
  ownTree: boolean,
): Promise<{ toolchain: string; note: string | null; rule: string | null }> {
  const machine = (await goJson(env, ['env', '-json', 'GOVERSION', 'GOTOOLCHAIN'])) as {
    GOVERSION: string;
    GOTOOLCHAIN: string;
  };
  const local = { toolchain: machine.GOVERSION, note: null, rule: null };
  const text = recipe.goVersionFile
    ? await readFile(join(root, recipe.goVersionFile), 'utf8').catch(() => '')
    : '';
  const wanted = dockerfileGoVersion(text);
  if (!wanted && !ownTree) return local;
  const listing = await env.run('go', ['list', '-m', '-versions', 'golang.org/toolchain'], {
    env: buildEnv({ GOFLAGS: '-mod=mod' }),
    cwd: '/',
  });
  const goarch = archNames(env.arch).arch;
  if (ownTree) {
    const chosen = treeToolchain({
      dockerfileGo: wanted,
      goMod: goModRequirement(await readFile(join(root, 'go.mod'), 'utf8')),
      localGo: machine.GOVERSION,
      pick: (w) => pickToolchain(listing.stdout, w, goarch),
    });
    return {
      toolchain: chosen.toolchain,
      note: null,
      rule: `${chosen.why} (its GOTOOLCHAIN default is ${machine.GOTOOLCHAIN})`,
    };
  }
  const picked = wanted ? pickToolchain(listing.stdout, wanted, goarch) : null;
  if (!wanted || !picked) return local;
  return {
    toolchain: picked,
    rule: null,
    note:
      wanted.split('.').length > 2 && picked !== `go${wanted}`
        ? `the release names go${wanted}, which the module proxy does not serve: built with ${picked}, the newest patch of that minor`
        : null,
  };
}
