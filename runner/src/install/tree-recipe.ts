// The recipe of one git tree, read from that tree: what its Makefile's release target (`make
// static` for runc) runs — the go generate steps, the build's tags, ldflags, stamps, buildmode and
// cgo — and the Go its Dockerfile and go.mod ask for. A commit between two releases is built as
// its own tree builds, not as the nearest release's recipe guesses. Pure: the files come in as
// text, so the unit tests read real Makefile and go.mod excerpts.
import { RbError } from '../errors.ts';
import { recipeFor } from './build-recipe.ts';
import type { GoBuildFlags, GoRecipe } from './go-recipe.ts';
import { readMakefile, shellWords, targetCommands } from './makefile.ts';
import { compareSemver } from './semver.ts';

/** The files of a tree the recipe is read from (null: the tree has none). */
export interface TreeFiles {
  /** The VERSION file (or the tag's version), as the Makefile's `$(shell cat ./VERSION)` reads it. */
  version: string;
  makefile: string;
  /** The release script that runs make (runc's script/release_build.sh): its target and ldflags. */
  releaseScript: string | null;
}

/** What the tree's `make <target>` runs, as go commands. */
export interface TreeBuild {
  target: string;
  /** `go generate` steps: the package and the tags it runs with. */
  generate: { package: string; tags: string[] }[];
  /** The Makefile's BUILDTAGS. */
  tags: string[];
  build: {
    package: string;
    output: string;
    tags: string[];
    trimpath: boolean;
    buildmode: 'pie' | null;
    stamps: Record<string, string>;
    ldflags: string[];
    /** Flags read but not passed again (`-mod=vendor`: the build runs -mod=mod, the same versions from go.sum). */
    ignored: string[];
  };
  /** CGO_ENABLED the target exports, when it does. */
  cgo: boolean | null;
  /** EXTRA_LDFLAGS as the release script passes them. */
  extraLdflags: string;
  /** go build commands of the target not built here (other packages). */
  skipped: string[];
}

/** The ldflags and make target of runc's release script: `local ldflags="-w -s -buildid="`, `make_args=(… static)`. */
export function releaseScriptArgs(script: string | null): { ldflags: string; target: string } {
  const ldflags = script ? /^\s*local ldflags="([^"]*)"/m.exec(script)?.[1] : undefined;
  const args = script ? /^\s*local make_args=\(([^)]*)\)/m.exec(script)?.[1] : undefined;
  const target = args
    ? shellWords(args)
        .filter((w) => !w.includes('='))
        .at(-1)
    : undefined;
  // The defaults are what every runc release script since 1.0 says.
  return { ldflags: ldflags ?? '-w -s -buildid=', target: target ?? 'static' };
}

const MARK = { commit: '{commit}', version: '{version}' };

/** Parses `go build` arguments the way the recipe can pass them again; an unknown flag is an error. */
function parseGoBuild(args: string[], where: string): TreeBuild['build'] {
  const build: TreeBuild['build'] = {
    package: '.',
    output: '',
    tags: [],
    trimpath: false,
    buildmode: null,
    stamps: {},
    ldflags: [],
    ignored: [],
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = () => args[++i] ?? '';
    if (a === '-trimpath') build.trimpath = true;
    else if (a === '-a') continue;
    else if (a.startsWith('-mod=')) build.ignored.push(a);
    else if (a.startsWith('-buildmode=') || a === '-buildmode') {
      const mode = a === '-buildmode' ? value() : a.slice('-buildmode='.length);
      if (mode !== 'pie' && mode !== 'default' && mode !== 'exe')
        throw new RbError('INSTALL_UNSUPPORTED', `${where}: go build -buildmode=${mode} is not supported`);
      build.buildmode = mode === 'pie' ? 'pie' : null;
    } else if (a === '-tags')
      build.tags = value()
        .split(/[\s,]+/)
        .filter(Boolean);
    else if (a === '-ldflags') {
      const words = shellWords(value());
      for (let j = 0; j < words.length; j++) {
        if (words[j] === '-X') {
          const [k, ...v] = (words[++j] ?? '').split('=');
          build.stamps[k!] = v.join('=');
        } else build.ldflags.push(words[j]!);
      }
    } else if (a === '-o') build.output = value();
    else if (a.startsWith('-'))
      throw new RbError(
        'INSTALL_UNSUPPORTED',
        `${where}: go build ${a} is a flag the recipe cannot pass yet`,
        'extend parseGoBuild in runner/src/install/tree-recipe.ts',
      );
    else build.package = a;
  }
  return build;
}

/** What `make <target>` of the tree runs (the release script's target), for the package `mainPackage`. */
export function readTreeBuild(files: TreeFiles, goarch: string, mainPackage: string): TreeBuild {
  const { ldflags: extraLdflags, target } = releaseScriptArgs(files.releaseScript);
  const make = readMakefile(files.makefile, {
    GO: 'go',
    GOARCH: goarch,
    // The stamps stay templates, filled per build (build-recipe.ts goInvocation).
    COMMIT: MARK.commit,
    VERSION: MARK.version,
    COMMIT_NO: '',
    // The release passes -a: it only refuses the build cache, the output is the same.
    EXTRA_FLAGS: '',
    EXTRA_LDFLAGS: extraLdflags,
  });
  const where = `Makefile (make ${target})`;
  const { lines, exports } = targetCommands(make, target);
  const generate: TreeBuild['generate'] = [];
  const skipped: string[] = [];
  let build: TreeBuild['build'] | null = null;
  let cgo: boolean | null = exports.CGO_ENABLED === undefined ? null : exports.CGO_ENABLED === '1';
  for (const { command } of lines) {
    const words = shellWords(command);
    // `CGO_ENABLED=1 go build …` (runc 1.0, 1.1.0): the variables the command sets first.
    const assigned = words.findIndex((x) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(x));
    const w = words.slice(assigned);
    if (w[0] !== 'go') continue; // rm, verify-dmz-arch and other checks shape no output
    if (w[1] === 'generate') {
      const tagsAt = w.indexOf('-tags');
      generate.push({
        package: w.at(-1)!,
        tags: tagsAt > 0 ? (w[tagsAt + 1] ?? '').split(/\s+/).filter(Boolean) : [],
      });
    } else if (w[1] === 'build') {
      const b = parseGoBuild(w.slice(2), where);
      if (b.package === mainPackage && build === null) {
        build = b;
        const set = words.slice(0, assigned).find((x) => x.startsWith('CGO_ENABLED='));
        if (set) cgo = set === 'CGO_ENABLED=1';
      } else skipped.push(command);
    }
  }
  if (!build)
    throw new RbError(
      'INSTALL_UNSUPPORTED',
      `${where} runs no go build of ${mainPackage}`,
      'this tree builds some other way: name a ref whose Makefile has that target',
    );
  return {
    target,
    generate,
    tags: make.expand('$(BUILDTAGS)').split(/\s+/).filter(Boolean),
    build,
    cgo,
    extraLdflags,
    skipped,
  };
}

/** go.mod's `go` directive and `toolchain` line (`1.22`, `go1.22.4`), each null when absent. */
export function goModRequirement(goMod: string): { go: string | null; toolchain: string | null } {
  return {
    go: /^go\s+(\d+\.\d+(?:\.\d+)?(?:rc\d+)?)\s*$/m.exec(goMod)?.[1] ?? null,
    toolchain: /^toolchain\s+(go\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1] ?? null,
  };
}

/** `go1.22` / `1.22.4` as a semantic version (`1.22.0`, `1.22.4`), for comparing. */
function goSemver(v: string): string {
  const [a = '0', b = '0', c = '0'] = v
    .replace(/^go/, '')
    .replace(/rc\d+$/, '')
    .split('.');
  return `${a}.${b}.${c}`;
}

/** True when a toolchain (`go1.22.12`) is at least go.mod's `go` directive (`1.22`), as go checks. */
export function satisfiesGoMod(toolchain: string, go: string | null): boolean {
  return go === null || compareSemver(goSemver(toolchain), goSemver(go)) >= 0;
}

/** The flags of the tree: the component's recipe, with every field the Makefile decides read from it. */
export function treeFlags(base: GoBuildFlags, tree: TreeBuild): GoBuildFlags {
  return {
    ...base,
    package: tree.build.package,
    output: tree.build.output || base.output,
    tags: tree.tags,
    staticTags: tree.build.tags.filter((t) => !tree.tags.includes(t)),
    buildmode: tree.build.buildmode,
    trimpath: tree.build.trimpath,
    cgo: tree.cgo ?? base.cgo,
    stamps: tree.build.stamps,
    ldflags: tree.build.ldflags,
    generate: tree.generate.map((g) => g.package),
  };
}

const FIELDS = [
  'generate',
  'tags',
  'staticTags',
  'buildmode',
  'trimpath',
  'cgo',
  'stamps',
  'ldflags',
] as const;

/** Field by field, where the tree's flags differ from another recipe's (empty when alike). */
export function flagDifferences(tree: GoBuildFlags, other: GoBuildFlags): string[] {
  const show = (v: unknown) =>
    Array.isArray(v)
      ? v.length === 0
        ? 'none'
        : v.join(' ')
      : v !== null && typeof v === 'object'
        ? Object.entries(v)
            .map(([k, x]) => `${k}=${String(x)}`)
            .join(' ') || 'none'
        : String(v);
  return FIELDS.filter((f) => show(tree[f]) !== show(other[f])).map(
    (f) => `${f}: the tree's ${show(tree[f])}, the version recipe's ${show(other[f])}`,
  );
}

export interface TreeRecipe {
  flags: GoBuildFlags;
  /** Where each part of the recipe came from in the tree, for the record's rules. */
  rules: string[];
  /** The recipe's notes, and how the version-keyed recipe of this VERSION would have built it differently. */
  notes: string[];
  unsupported: string | null;
}

/**
 * The recipe of a tree: the component's recipe for what the Makefile does not say (the Debian
 * deps, the versions it refuses), the Makefile for the rest. `directives` are the `//go:generate`
 * lines of each generated package (`dmz_linux.go: //go:generate make -B binary/runc-dmz`).
 */
export function treeRecipe(
  recipe: GoRecipe,
  files: TreeFiles,
  goarch: string,
  directives: Record<string, string[]>,
): TreeRecipe {
  const version = files.version.trim();
  const keyed = recipeFor(recipe, version.replace(/\+.*$/, ''));
  const tree = readTreeBuild(files, goarch, keyed.flags.package);
  // A directive that runs make compiles C (runc-dmz): the build needs make and a C toolchain.
  const runsMake = Object.values(directives).some((ds) => ds.some((d) => /\bmake\b/.test(d)));
  const flags = {
    ...treeFlags(keyed.flags, tree),
    debianDeps: [...keyed.flags.debianDeps, ...(runsMake ? ['gcc', 'make'] : [])],
  };
  const rules = [
    ...tree.generate.map((g) => {
      const found = directives[g.package] ?? [];
      return `Makefile (make ${tree.target}): go generate ${g.package} (${found.length > 0 ? found.join('; ') : 'no //go:generate directive there: a no-op'})`;
    }),
    `Makefile (make ${tree.target}): BUILDTAGS ${tree.tags.join(' ') || '(none)'}; go build ${[
      tree.build.trimpath ? '-trimpath' : '',
      tree.build.buildmode ? `-buildmode=${tree.build.buildmode}` : '',
      `-tags "${tree.build.tags.join(' ')}"`,
      `-ldflags "${[...Object.entries(tree.build.stamps).map(([k, v]) => `-X ${k}=${v}`), ...tree.build.ldflags].join(' ')}"`,
    ]
      .filter(Boolean)
      .join(' ')}${tree.cgo === null ? '' : ` with CGO_ENABLED=${tree.cgo ? 1 : 0}`}`,
    `script/release_build.sh: make ${tree.target} EXTRA_LDFLAGS="${tree.extraLdflags}"`,
  ];
  const differences = flagDifferences(flags, keyed.flags);
  const notes = [
    ...keyed.notes,
    ...tree.skipped.map((c) => `make ${tree.target} also runs "${c}": not built here`),
    ...tree.build.ignored.map(
      (f) => `the Makefile's go build passes ${f}; built with GOFLAGS=-mod=mod (the versions go.sum pins)`,
    ),
    ...(differences.length > 0
      ? [
          `built as its tree's Makefile builds; the recipe keyed by VERSION ${version} would differ in ${differences.join('; ')}`,
        ]
      : []),
  ];
  return { flags, rules, notes, unsupported: keyed.unsupported };
}

/**
 * The Go a tree is built with, and why: its Dockerfile's GO_VERSION as a release build picks it,
 * when that satisfies go.mod's `go` directive; else go.mod's `toolchain` line; else the newest
 * patch of the `go` directive's minor; else the machine's go. `pick` maps a wanted version to a
 * toolchain the module proxy serves (pickToolchain), or null.
 */
export function treeToolchain(input: {
  dockerfileGo: string | null;
  goMod: { go: string | null; toolchain: string | null };
  localGo: string;
  pick: (wanted: string) => string | null;
}): { toolchain: string; why: string } {
  const { dockerfileGo, goMod, localGo, pick } = input;
  const requirement = `go.mod: go ${goMod.go ?? '(none)'}, toolchain ${goMod.toolchain ?? '(none)'}`;
  const local = `the machine's go is ${localGo}, which ${satisfiesGoMod(localGo, goMod.go) ? 'satisfies' : 'does not satisfy'} go.mod`;
  const fetched = (t: string) =>
    t === localGo
      ? 'the machine’s own'
      : `GOTOOLCHAIN=${t}: go fetches golang.org/toolchain from the module proxy`;
  const tries: { wanted: string | null; from: string }[] = [
    { wanted: dockerfileGo, from: `Dockerfile GO_VERSION=${dockerfileGo}` },
    { wanted: goMod.toolchain?.replace(/^go/, '') ?? null, from: `go.mod toolchain ${goMod.toolchain}` },
    { wanted: goMod.go, from: `go.mod go ${goMod.go}` },
  ];
  for (const t of tries) {
    if (t.wanted === null) continue;
    const picked = pick(t.wanted);
    if (picked && satisfiesGoMod(picked, goMod.go))
      return {
        toolchain: picked,
        why: `Go ${picked} from the ${t.from} (${fetched(picked)}); ${requirement}; ${local}`,
      };
  }
  if (!satisfiesGoMod(localGo, goMod.go))
    throw new RbError(
      'INSTALL_BUILD_DEPS',
      `${requirement}: the module proxy serves no toolchain for it and the machine's ${localGo} is older`,
      'install a newer Go, or pass --toolchain go1.X.Y',
    );
  return {
    toolchain: localGo,
    why: `the machine's ${localGo} (no toolchain named by the tree is served); ${requirement}`,
  };
}
