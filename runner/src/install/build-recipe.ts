// How each buildable component's upstream release is compiled, as data per version range, and
// the pure function that turns a recipe into go invocations. Every rule cites what it copies: the
// Makefile and script/release_build.sh of the versions it covers, read from the module source the
// Go module proxy serves. A build that differs from the release measures the recipe, not the
// version, so each known difference is written into the build record as a note. A git tree of a
// recipe with `fromTree` (runc) is built as its own Makefile says instead (tree-recipe.ts).
import { RbError } from '../errors.ts';
import type { ComponentName } from './components.ts';
import type { CompanionBuild, GoBuildFlags, GoRecipe } from './go-recipe.ts';
import { CONTAINERD } from './recipe-containerd.ts';
import { NERDCTL } from './recipe-nerdctl.ts';
import { compareSemver, inRange } from './semver.ts';

/**
 * Build sources: the Go module proxy, crates.io, a local git checkout at a ref, or upstream's
 * release tarball as the Debian archive's source packages carry it (crun).
 */
export type BuildSource = 'go' | 'cargo' | 'git' | 'debian-source';
export const BUILD_SOURCES: readonly BuildSource[] = ['go', 'cargo', 'git', 'debian-source'];

/** Components built with their own (non-Go) recipe, and the sources each builds from. */
export const OTHER_RECIPES: Partial<Record<ComponentName, readonly BuildSource[]>> = {
  crun: ['debian-source', 'git'],
};

/** Why `component` cannot be built from `source`, or null: the plan's and sweep's check. */
export function buildRefusal(component: ComponentName, source: BuildSource): string | null {
  const other = OTHER_RECIPES[component];
  if (other)
    return other.includes(source)
      ? null
      : `${component} builds from ${other.map((s) => `--source ${s}`).join(' or ')}`;
  if (!GO_RECIPES[component])
    return `buildable from source: ${[...Object.keys(GO_RECIPES), ...Object.keys(OTHER_RECIPES)].join(', ')}; use --source release or distro for ${component}`;
  if (source === 'debian-source')
    return `--source debian-source builds ${Object.keys(OTHER_RECIPES).join(', ')} only; use --source go or git for ${component}`;
  return null;
}

/** The module path holding a version: `github.com/containerd/containerd/v2` for 2.x. */
export function moduleFor(recipe: GoRecipe, version: string): string {
  const major = /^v?(\d+)\./.exec(version)?.[1];
  // A commit or branch names no major: the newest module is asked.
  const n = major === undefined ? recipe.majors.at(-1)! : Number(major);
  return n >= 2 ? `${recipe.module}/v${n}` : recipe.module;
}

/** Every module path of a recipe, oldest major first. */
export function recipeModules(recipe: GoRecipe): string[] {
  return recipe.majors.map((m) => moduleFor(recipe, `${m}.0.0`));
}

/**
 * runc: `make static` as script/release_build.sh runs it (EXTRA_LDFLAGS="-w -s -buildid=").
 * Static, seccomp-enabled, stripped; version and commit stamped by the Makefile's LDFLAGS_COMMON.
 */
const RUNC: GoRecipe = {
  component: 'runc',
  module: 'github.com/opencontainers/runc',
  majors: [1],
  versionFile: 'VERSION',
  goVersionFile: 'Dockerfile',
  base: {
    package: '.',
    output: 'runc',
    tags: ['seccomp'],
    staticTags: ['netgo', 'osusergo'],
    buildmode: null,
    trimpath: true,
    cgo: true,
    stamps: { 'main.gitCommit': '{commit}', 'main.version': '{version}' },
    ldflags: ['-extldflags', '-static', '-w', '-s', '-buildid='],
    generate: [],
    debianDeps: ['libseccomp-dev', 'pkg-config'],
    companions: [],
  },
  rules: [
    {
      since: '1.1.8',
      before: '1.2.0',
      why: 'Makefile 1.1.8–1.1.14: GO_BUILDMODE_STATIC=-buildmode=pie, LDFLAGS_STATIC=-linkmode external -extldflags --static-pie (amd64, arm64)',
      set: {
        buildmode: 'pie',
        ldflags: ['-linkmode', 'external', '-extldflags', '--static-pie', '-w', '-s', '-buildid='],
      },
    },
    {
      since: '1.2.0',
      why: 'Makefile 1.2+: BUILDTAGS := seccomp urfave_cli_no_docs; static-pie with -extldflags -static-pie',
      addTags: ['urfave_cli_no_docs'],
      set: {
        buildmode: 'pie',
        ldflags: ['-linkmode', 'external', '-extldflags', '-static-pie', '-w', '-s', '-buildid='],
      },
    },
    {
      since: '1.2.0',
      before: '1.2.1',
      why: 'Makefile 1.2.0: static-bin depends on runc-dmz (go generate ./libcontainer/dmz)',
      set: { generate: ['./libcontainer/dmz'] },
    },
    {
      since: '1.3.0-rc.1',
      why: 'Makefile 1.3+: LDFLAGS_COMMON stamps only main.gitCommit; the version is embedded from VERSION',
      set: { stamps: { 'main.gitCommit': '{commit}' } },
    },
    {
      since: '1.5.0-rc.1',
      why: 'Makefile 1.5+: BUILDTAGS adds libpathrs, linked from libpathrs built with cargo by script/build-libpathrs.sh',
      addTags: ['libpathrs'],
      unsupported:
        'runc 1.5 and newer link libpathrs (a Rust library) that the release builds from its own tarball; building it is not automated yet: use --source release on a host that can reach the release downloads',
    },
    {
      since: '1.6.0-rc.1',
      why: 'Makefile 1.6: BUILDTAGS := seccomp libpathrs (urfave_cli_no_docs is gone)',
      removeTags: ['urfave_cli_no_docs'],
    },
  ],
  notes: [
    "libseccomp is Debian's static libseccomp.a, not the one release_build.sh compiles from its tarball (runc --version names the version linked)",
    'go build runs without -a: -a only refuses the build cache, the output is the same',
  ],
  noCommitNote: 'the module proxy does not say which commit this tag is: the commit stamp is the tag',
  fromTree: { releaseScript: 'script/release_build.sh' },
};

export const GO_RECIPES: Partial<Record<ComponentName, GoRecipe>> = {
  runc: RUNC,
  containerd: CONTAINERD,
  nerdctl: NERDCTL,
};

/** The recipe of a component for the go and git sources, or a clear error. */
export function goRecipe(component: ComponentName): GoRecipe {
  const recipe = GO_RECIPES[component];
  if (!recipe)
    throw new RbError(
      'INSTALL_UNSUPPORTED',
      `${component}: no build recipe yet`,
      `buildable from source: ${[...Object.keys(GO_RECIPES), ...Object.keys(OTHER_RECIPES)].join(', ')}; use --source release or distro for ${component}`,
    );
  return recipe;
}

/** The flags of one version: the base with every matching rule applied, plus notes and refusals. */
export function recipeFor(
  recipe: GoRecipe,
  version: string,
): { flags: GoBuildFlags; rules: string[]; notes: string[]; unsupported: string | null } {
  let flags: GoBuildFlags = { ...recipe.base, tags: [...recipe.base.tags] };
  const rules: string[] = [];
  const notes = [...recipe.notes];
  let unsupported: string | null = null;
  for (const rule of recipe.rules) {
    if (!inRange(version, rule)) continue;
    rules.push(rule.why);
    const tags = flags.tags.filter((t) => !(rule.removeTags ?? []).includes(t));
    for (const t of rule.addTags ?? []) if (!tags.includes(t)) tags.push(t);
    flags = { ...flags, ...rule.set, tags };
    notes.push(...(rule.notes ?? []));
    unsupported = rule.unsupported ?? unsupported;
  }
  return { flags, rules, notes, unsupported };
}

export interface GoInvocation {
  /** Arguments of `go` (generate steps first, the main build, then its companions), run in the module root. */
  steps: string[][];
  /** Variables every step runs with. */
  env: Record<string, string>;
  /** Per step, what it sets differently (the shim's CGO_ENABLED=0); empty for most. */
  stepEnv: Record<string, string>[];
  /** The stamp values used. */
  stamps: Record<string, string>;
}

/** What a build stamps: `{version}` (the VERSION file or the tag), `{commit}`, `{tag}`, `{revision}`, `{module}`. */
export interface StampValues {
  version: string;
  /** runc: `git describe --long --always`. */
  commit: string;
  toolchain: string;
  /** containerd: `git describe --match 'v[0-9]*' --dirty='.m' --always` (the tag at a release). */
  tag?: string;
  /** containerd: `git rev-parse HEAD`, empty when unknown. */
  revision?: string;
  module?: string;
}

/** The command of one step as the record keeps it: its own variables first, as a shell would read it. */
export function stepCommand(args: readonly string[], stepEnv: Record<string, string>): string {
  return [...Object.entries(stepEnv).map(([k, v]) => `${k}=${v}`), 'go', ...args].join(' ');
}

/** The go commands of a build: pure, so the unit tests pin every flag against the Makefiles. */
export function goInvocation(flags: GoBuildFlags, values: StampValues): GoInvocation {
  const fill = (t: string) =>
    t
      .replace('{version}', values.version)
      .replace('{commit}', values.commit)
      .replace('{tag}', values.tag ?? values.version)
      .replace('{revision}', values.revision ?? '')
      .replaceAll('{module}', values.module ?? '');
  const stamps = Object.fromEntries(Object.entries(flags.stamps).map(([k, v]) => [fill(k), fill(v)]));
  const stampFlags = Object.entries(stamps).map(([k, v]) => `-X ${k}=${v}`);
  const build = (c: Required<CompanionBuild>) => [
    'build',
    ...(flags.trimpath ? ['-trimpath'] : []),
    ...(c.buildmode ? [`-buildmode=${c.buildmode}`] : []),
    // No -tags at all when a Makefile passes none (nerdctl), as its `go build` line reads.
    ...(c.tags.length > 0 ? ['-tags', c.tags.join(' ')] : []),
    '-ldflags',
    [...stampFlags, ...c.ldflags].join(' '),
    '-o',
    c.output,
    c.package,
  ];
  const main: Required<CompanionBuild> = {
    package: flags.package,
    output: flags.output,
    tags: [...flags.tags, ...flags.staticTags],
    cgo: flags.cgo,
    buildmode: flags.buildmode,
    ldflags: flags.ldflags,
  };
  const companions = flags.companions.map((c): Required<CompanionBuild> => ({ ...main, ...c }));
  const generate = flags.generate.map((pkg) => ['generate', '-tags', flags.tags.join(' '), pkg]);
  return {
    steps: [...generate, build(main), ...companions.map(build)],
    env: {
      CGO_ENABLED: flags.cgo ? '1' : '0',
      GOTOOLCHAIN: values.toolchain,
      // The module zip has no vendor/ tree: dependencies come from the module proxy, pinned by go.sum.
      // No -buildvcs: go before 1.18 refuses it, and a tree without .git stamps no VCS anyway.
      GOFLAGS: '-mod=mod',
    },
    stepEnv: [
      ...generate.map(() => ({})),
      {},
      ...companions.map((c) => (c.cgo === flags.cgo ? {} : { CGO_ENABLED: c.cgo ? '1' : '0' })),
    ],
    stamps,
  };
}

/** The executables a build makes, each with whether its release is static (no glibc loaded). */
export function builtExecutables(flags: GoBuildFlags): { output: string; static: boolean }[] {
  const isStatic = (cgo: boolean, ldflags: readonly string[]) =>
    !cgo || ldflags.some((f) => /^--?static(-pie)?$/.test(f));
  return [
    { output: flags.output, static: isStatic(flags.cgo, flags.ldflags) },
    ...flags.companions.map((c) => ({
      output: c.output,
      static: isStatic(c.cgo ?? flags.cgo, c.ldflags ?? flags.ldflags),
    })),
  ];
}

/** The Go of `ARG GO_VERSION=1.22` (runc: a minor) or `=1.25.12` (containerd: a patch) in a Dockerfile, or null. */
export function dockerfileGoVersion(text: string): string | null {
  const m = /^ARG GO_VERSION=(\d+\.\d+(?:\.\d+)?)\b/m.exec(text);
  return m ? m[1]! : null;
}

/**
 * The toolchain of a Dockerfile's Go: that exact patch when it names one the proxy lists, else
 * the newest patch of its minor; null when the proxy lists none of that minor.
 */
export function pickToolchain(listing: string, wanted: string, goarch: string): string | null {
  const minor = wanted.split('.').slice(0, 2).join('.');
  if (wanted !== minor && listing.split(/\s+/).includes(`v0.0.1-go${wanted}.linux-${goarch}`))
    return `go${wanted}`;
  return newestToolchain(listing, minor, goarch);
}

/**
 * The newest patch of a Go minor among the toolchains the proxy lists
 * (`go list -m -versions golang.org/toolchain`: `v0.0.1-go1.22.12.linux-amd64` …), as `go1.22.12`.
 */
export function newestToolchain(listing: string, minor: string, goarch: string): string | null {
  const patches = listing
    .split(/\s+/)
    .map((v) =>
      new RegExp(`^v0\\.0\\.1-go(${minor.replace('.', '\\.')}(?:\\.\\d+)?)\\.linux-${goarch}$`).exec(v),
    )
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => m[1]!);
  if (patches.length === 0) return null;
  return `go${patches.sort(compareSemver).at(-1)!}`;
}

/**
 * What `git describe --long --always` prints at a release tag (`v1.2.0-0-g0b9fa21b`), which the
 * Makefile stamps as the commit; a commit that is no tag stamps its abbreviated hash.
 */
export function describeCommit(tag: string | null, hash: string): string {
  const short = hash.slice(0, 8);
  return tag ? `${tag}-0-g${short}` : short;
}
