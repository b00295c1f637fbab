// The recipe of a git tree read from its own files, on excerpts of real runc trees
// (test/fixtures/runc-trees: runc 1.1.15, main at 9d2842debb8f of February 2024, which needs
// runc-dmz's go generate, and 1.2.0). The expected commands are read off those Makefiles by hand.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import {
  GO_RECIPES,
  dockerfileGoVersion,
  goInvocation,
  pickToolchain,
  recipeFor,
} from '../../../src/install/build-recipe.ts';
import { readMakefile, shellWords, targetCommands } from '../../../src/install/makefile.ts';
import {
  goModRequirement,
  readTreeBuild,
  releaseScriptArgs,
  satisfiesGoMod,
  treeRecipe,
  treeToolchain,
  type TreeFiles,
} from '../../../src/install/tree-recipe.ts';
import { generateDirectives, readTreeRecipe } from '../../../src/install/tree-source.ts';

const runc = { ...GO_RECIPES.runc!, fromTree: GO_RECIPES.runc!.fromTree! };
const FIXTURES = join(import.meta.dirname, '../../fixtures/runc-trees');
const read = (tree: string, file: string) => readFileSync(join(FIXTURES, tree, file), 'utf8');
const files = (tree: string): TreeFiles => ({
  version: read(tree, 'VERSION').trim(),
  makefile: read(tree, 'Makefile'),
  releaseScript: read(tree, 'release_build.sh'),
});
/** The tree's `//go:generate` lines of libcontainer/dmz, as tree-source.ts reports them. */
const dmz = (tree: string) => ({
  './libcontainer/dmz': read(tree, 'dmz-directives.txt')
    .split('\n')
    .filter(Boolean)
    .map((d) => `dmz_linux.go: ${d}`),
});
const stamps = { version: '', commit: 'v1.1.0-951-g9d2842deb', toolchain: 'go1.20.14' };

describe('the Makefile reader', () => {
  test('make static of runc main (February 2024) runs go generate for runc-dmz, then the static build', () => {
    const make = readMakefile(read('main-2024-02-9d2842de', 'Makefile'), { GO: 'go', GOARCH: 'amd64' });
    const { lines, exports } = targetCommands(make, 'static');
    expect(lines.map((l) => [l.target, shellWords(l.command)[0], shellWords(l.command)[1]])).toEqual([
      ['runc-dmz', 'rm', '-f'],
      ['runc-dmz', 'go', 'generate'],
      ['static-bin', 'go', 'build'],
    ]);
    expect(exports).toEqual({ CGO_ENABLED: '1' });
  });

  test("GOARCH picks the Makefile's branch: static-pie on amd64 and arm64, plain -static elsewhere", () => {
    const build = (goarch: string) => readTreeBuild(files('1.2.0'), goarch, '.').build;
    for (const goarch of ['amd64', 'arm64']) {
      expect(build(goarch).buildmode).toBe('pie');
      expect(build(goarch).ldflags).toEqual([
        '-linkmode',
        'external',
        '-extldflags',
        '-static-pie',
        '-w',
        '-s',
        '-buildid=',
      ]);
    }
    expect(build('riscv64').buildmode).toBeNull();
    expect(build('riscv64').ldflags).toEqual(['-extldflags', '-static', '-w', '-s', '-buildid=']);
  });

  test('make syntax the runc Makefiles use: ?=, +=, else, $(if), $(strip), command-line overrides', () => {
    const make = readMakefile(
      [
        'TAGS ?= a',
        'TAGS ?= ignored',
        'TAGS += $(EXTRA)',
        'EXTRA := b',
        'LATE = $(EXTRA)',
        'SET := $(if $(strip $(NOTHING)),yes,no)',
        'ifeq ($(ARCH),x)',
        'PICK := x',
        'else ifeq ($(ARCH),y)',
        'PICK := y',
        'else',
        'PICK := other',
        'endif',
        'WON := makefile',
      ].join('\n'),
      { ARCH: 'y', WON: 'command line' },
    );
    // TAGS += $(EXTRA) appends the reference, which expands to b once EXTRA is set (a recursive variable).
    expect(make.expand('$(TAGS)|$(LATE)|$(SET)|$(PICK)|$(WON)')).toBe('a b|b|no|y|command line');
  });

  test('a command is split as a shell splits it', () => {
    expect(shellWords('go build -tags "a b" -ldflags \'-X x=1 -w\' -o runc .')).toEqual([
      'go',
      'build',
      '-tags',
      'a b',
      '-ldflags',
      '-X x=1 -w',
      '-o',
      'runc',
      '.',
    ]);
  });
});

describe('the recipe of a tree', () => {
  test('runc main at 9d2842debb8f: go generate ./libcontainer/dmz before a static-pie build, as its Makefile does', () => {
    const r = treeRecipe(runc, files('main-2024-02-9d2842de'), 'amd64', dmz('main-2024-02-9d2842de'));
    const inv = goInvocation(r.flags, { ...stamps, version: '1.1.0+dev' });
    expect(inv.steps.map((s) => s.join(' '))).toEqual([
      'generate -tags seccomp urfave_cli_no_docs ./libcontainer/dmz',
      'build -trimpath -buildmode=pie -tags seccomp urfave_cli_no_docs netgo osusergo -ldflags -X main.gitCommit=v1.1.0-951-g9d2842deb -X main.version=1.1.0+dev -linkmode external -extldflags -static-pie -w -s -buildid= -o runc .',
    ]);
    expect(inv.env.CGO_ENABLED).toBe('1');
    // Its directive runs make, which compiles runc-dmz with the C compiler.
    expect(r.flags.debianDeps).toEqual(expect.arrayContaining(['gcc', 'make', 'libseccomp-dev']));
    expect(r.rules[0]).toBe(
      'Makefile (make static): go generate ./libcontainer/dmz (dmz_linux.go: //go:generate make -B binary/runc-dmz)',
    );
    // VERSION says 1.1.0+dev: the rules of 1.1.0 would have built it without runc-dmz, the failure this replaces.
    const note = r.notes.find((n) => n.startsWith('built as its tree'));
    expect(note).toContain('VERSION 1.1.0+dev');
    expect(note).toContain("generate: the tree's ./libcontainer/dmz, the version recipe's none");
    expect(note).toContain("tags: the tree's seccomp urfave_cli_no_docs, the version recipe's seccomp");
  });

  test('release trees (1.1.15, 1.2.0) read as the version-keyed recipe of that release builds them', () => {
    for (const [tree, version] of [
      ['1.1.15', '1.1.15'],
      ['1.2.0', '1.2.0'],
    ] as const) {
      const r = treeRecipe(runc, files(tree), 'amd64', dmz(tree));
      const keyed = recipeFor(runc, version).flags;
      const values = { ...stamps, version };
      expect(goInvocation(r.flags, values)).toEqual(goInvocation(keyed, values));
      expect(r.notes.some((n) => n.startsWith('built as its tree'))).toBe(false);
    }
  });

  test('runc 1.1.15: no go generate, --static-pie with the double dash of its Makefile', () => {
    const r = treeRecipe(runc, files('1.1.15'), 'amd64', dmz('1.1.15'));
    expect(r.flags.generate).toEqual([]);
    expect(r.flags.ldflags).toContain('--static-pie');
    expect(r.flags.debianDeps).not.toContain('make');
  });

  test('a generate step whose package has no directive is recorded as a no-op', () => {
    const r = treeRecipe(runc, files('1.2.0'), 'amd64', {});
    expect(r.rules[0]).toContain('no //go:generate directive there');
    expect(r.flags.debianDeps).not.toContain('make');
  });

  test('a go build flag the recipe cannot pass again is refused, naming it', () => {
    const makefile = 'static:\n\tgo build -race -o runc .\n';
    const error = (() => {
      try {
        treeRecipe(runc, { version: '1.2.0', makefile, releaseScript: null }, 'amd64', {});
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).message).toBe(
      'Makefile (make static): go build -race is a flag the recipe cannot pass yet',
    );
  });

  test('a Makefile whose release target builds no runc is refused', () => {
    expect(() =>
      treeRecipe(
        runc,
        { version: '1.2.0', makefile: 'static:\n\techo hi\n', releaseScript: null },
        'amd64',
        {},
      ),
    ).toThrow('Makefile (make static) runs no go build of .');
  });

  test("the release script's ldflags and target; runc's own defaults without one", () => {
    expect(releaseScriptArgs(read('1.2.0', 'release_build.sh'))).toEqual({
      ldflags: '-w -s -buildid=',
      target: 'static',
    });
    expect(releaseScriptArgs(null)).toEqual({ ldflags: '-w -s -buildid=', target: 'static' });
  });

  test('a tree on disk: its Makefile, release script and the directives of the packages it generates', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rb-tree-'));
    const tree = 'main-2024-02-9d2842de';
    writeFileSync(join(root, 'Makefile'), read(tree, 'Makefile'));
    mkdirSync(join(root, 'script'));
    writeFileSync(join(root, 'script/release_build.sh'), read(tree, 'release_build.sh'));
    mkdirSync(join(root, 'libcontainer/dmz'), { recursive: true });
    writeFileSync(
      join(root, 'libcontainer/dmz/dmz_linux.go'),
      `package dmz\n\n${read(tree, 'dmz-directives.txt')}`,
    );
    const r = await readTreeRecipe(runc, '/src/runc@9d2842de', root, '1.1.0+dev', 'amd64');
    expect(r).toEqual(treeRecipe(runc, files(tree), 'amd64', dmz(tree)));
    await expect(
      readTreeRecipe(runc, '/src/runc@old', mkdtempSync(join(tmpdir(), 'rb-tree-')), '1.0.0', 'amd64'),
    ).rejects.toThrow('/src/runc@old: the tree has no Makefile to read its build from');
  });

  test('the //go:generate lines of a package directory, file by file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-gen-'));
    writeFileSync(join(dir, 'b.go'), 'package x\n//go:generate make -B binary/x\n');
    writeFileSync(join(dir, 'a.go'), 'package x\n// go:generate not a directive\n');
    writeFileSync(join(dir, 'notes.txt'), '//go:generate ignored\n');
    return expect(generateDirectives(dir, '.')).resolves.toEqual(['b.go: //go:generate make -B binary/x']);
  });
});

describe('the Go of a tree', () => {
  // Real toolchains the module proxy lists (`go list -m -versions golang.org/toolchain`, an excerpt).
  const listing =
    'v0.0.1-go1.20.4.linux-amd64 v0.0.1-go1.20.14.linux-amd64 v0.0.1-go1.22.0.linux-amd64 v0.0.1-go1.22.12.linux-amd64 v0.0.1-go1.23.12.linux-amd64';
  const pick = (w: string) => pickToolchain(listing, w, 'amd64');
  const of = (tree: string, localGo = 'go1.26.8') =>
    treeToolchain({
      dockerfileGo: dockerfileGoVersion(read(tree, 'Dockerfile')),
      goMod: goModRequirement(read(tree, 'go.mod')),
      localGo,
      pick,
    });

  test("go.mod's go directive and toolchain line", () => {
    expect(goModRequirement(read('1.1.15', 'go.mod'))).toEqual({ go: '1.18', toolchain: null });
    expect(goModRequirement(read('1.2.0', 'go.mod'))).toEqual({ go: '1.22', toolchain: 'go1.22.4' });
    expect(satisfiesGoMod('go1.22.12', '1.22')).toBe(true);
    expect(satisfiesGoMod('go1.21.13', '1.22')).toBe(false);
    expect(satisfiesGoMod('go1.22.3', '1.22.4')).toBe(false);
  });

  test("each tree's Dockerfile Go, which satisfies its go.mod", () => {
    expect(of('1.1.15').toolchain).toBe('go1.22.12');
    expect(of('main-2024-02-9d2842de').toolchain).toBe('go1.20.14');
    expect(of('1.2.0').toolchain).toBe('go1.22.12');
    expect(of('main-2024-02-9d2842de').why).toBe(
      "Go go1.20.14 from the Dockerfile GO_VERSION=1.20 (GOTOOLCHAIN=go1.20.14: go fetches golang.org/toolchain from the module proxy); go.mod: go 1.20, toolchain (none); the machine's go is go1.26.8, which satisfies go.mod",
    );
  });

  test("a Dockerfile Go older than go.mod's go directive gives way to go.mod's toolchain line", () => {
    const t = treeToolchain({
      dockerfileGo: '1.20',
      goMod: { go: '1.22', toolchain: 'go1.22.4' },
      localGo: 'go1.26.8',
      pick,
    });
    // go1.22.4 is not listed: its minor's newest patch.
    expect(t.toolchain).toBe('go1.22.12');
    expect(t.why).toMatch(/^Go go1\.22\.12 from the go\.mod toolchain go1\.22\.4/);
  });

  test("nothing listed: the machine's go when it satisfies go.mod, else a clear error", () => {
    const none = () => null;
    expect(
      treeToolchain({
        dockerfileGo: '1.20',
        goMod: { go: '1.20', toolchain: null },
        localGo: 'go1.26.8',
        pick: none,
      }).toolchain,
    ).toBe('go1.26.8');
    expect(() =>
      treeToolchain({
        dockerfileGo: null,
        goMod: { go: '1.30', toolchain: null },
        localGo: 'go1.26.8',
        pick: none,
      }),
    ).toThrow(
      "go.mod: go 1.30, toolchain (none): the module proxy serves no toolchain for it and the machine's go1.26.8 is older",
    );
  });
});
