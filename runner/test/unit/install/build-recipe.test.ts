import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import {
  GO_RECIPES,
  describeCommit,
  dockerfileGoVersion,
  goInvocation,
  newestToolchain,
  pickToolchain,
  recipeFor,
} from '../../../src/install/build-recipe.ts';
import { newestPerMinor, parseGoVersions, selectRange } from '../../../src/install/available.ts';
import { buildPlan, formatPlan } from '../../../src/install/plan.ts';
import { compareSemver, inRange } from '../../../src/install/semver.ts';

const runc = GO_RECIPES.runc!;

describe('semantic version order', () => {
  test('pre-releases before their release, pseudo-versions after the release they build on', () => {
    const shuffled = [
      '1.5.0',
      '1.2.1-0.20241001120000-abcdef123456',
      '1.5.0-rc.2',
      '1.10.0',
      '1.2.0',
      '1.5.0-rc.10',
      'v1.1.5',
    ];
    expect([...shuffled].sort(compareSemver)).toEqual([
      'v1.1.5',
      '1.2.0',
      '1.2.1-0.20241001120000-abcdef123456',
      '1.5.0-rc.2',
      '1.5.0-rc.10',
      '1.5.0',
      '1.10.0',
    ]);
  });
  test('build metadata is ignored; ranges are half-open', () => {
    expect(compareSemver('1.3.0-rc.1+dev', '1.3.0-rc.1')).toBe(0);
    expect(inRange('1.2.0', { since: '1.2.0', before: '1.2.1' })).toBe(true);
    expect(inRange('1.2.1', { since: '1.2.0', before: '1.2.1' })).toBe(false);
    expect(() => compareSemver('main', '1.0.0')).toThrow(/"main" is not a semantic version/);
  });
});

describe("the runc recipe follows each version's Makefile and release_build.sh", () => {
  // Expected flags transcribed by hand from the Makefiles of the module zips (v1.1.5, v1.1.8,
  // v1.2.0, v1.2.3, v1.3.0, v1.6.0-rc.1) and script/release_build.sh (EXTRA_LDFLAGS="-w -s -buildid=").
  test('1.1.5: static (no PIE), tags seccomp, version and commit stamped', () => {
    const inv = goInvocation(recipeFor(runc, '1.1.5').flags, {
      version: '1.1.5',
      commit: 'v1.1.5-0-gf19387a6',
      toolchain: 'go1.17.13',
    });
    expect(inv.steps).toEqual([
      [
        'build',
        '-trimpath',
        '-tags',
        'seccomp netgo osusergo',
        '-ldflags',
        '-X main.gitCommit=v1.1.5-0-gf19387a6 -X main.version=1.1.5 -extldflags -static -w -s -buildid=',
        '-o',
        'runc',
        '.',
      ],
    ]);
    expect(inv.env).toEqual({ CGO_ENABLED: '1', GOTOOLCHAIN: 'go1.17.13', GOFLAGS: '-mod=mod' });
  });
  test('1.1.8 to 1.1.14: static PIE with --static-pie', () => {
    for (const v of ['1.1.8', '1.1.14']) {
      const { flags } = recipeFor(runc, v);
      expect(flags.buildmode).toBe('pie');
      expect(flags.ldflags.join(' ')).toBe('-linkmode external -extldflags --static-pie -w -s -buildid=');
      expect(flags.tags).toEqual(['seccomp']);
    }
  });
  test('1.2.0: runc-dmz generated first, urfave_cli_no_docs, -static-pie', () => {
    const inv = goInvocation(recipeFor(runc, '1.2.0').flags, {
      version: '1.2.0',
      commit: 'v1.2.0-0-g0b9fa21b',
      toolchain: 'go1.22.12',
    });
    expect(inv.steps).toEqual([
      ['generate', '-tags', 'seccomp urfave_cli_no_docs', './libcontainer/dmz'],
      [
        'build',
        '-trimpath',
        '-buildmode=pie',
        '-tags',
        'seccomp urfave_cli_no_docs netgo osusergo',
        '-ldflags',
        '-X main.gitCommit=v1.2.0-0-g0b9fa21b -X main.version=1.2.0 -linkmode external -extldflags -static-pie -w -s -buildid=',
        '-o',
        'runc',
        '.',
      ],
    ]);
  });
  test('1.2.3 has no runc-dmz; 1.3 stamps only the commit (the version is embedded from VERSION)', () => {
    expect(recipeFor(runc, '1.2.3').flags.generate).toEqual([]);
    expect(recipeFor(runc, '1.3.0').flags.stamps).toEqual({ 'main.gitCommit': '{commit}' });
    expect(recipeFor(runc, '1.3.0-rc.1').flags.stamps).toEqual({ 'main.gitCommit': '{commit}' });
    expect(recipeFor(runc, '1.2.8').flags.stamps).toHaveProperty('main.version');
  });
  test('1.5 needs libpathrs: refused with the reason; 1.6 drops urfave_cli_no_docs', () => {
    expect(recipeFor(runc, '1.5.2').unsupported).toMatch(/libpathrs/);
    expect(recipeFor(runc, '1.5.0-rc.2').unsupported).toMatch(/libpathrs/);
    expect(recipeFor(runc, '1.4.3').unsupported).toBeNull();
    expect(recipeFor(runc, '1.6.0-rc.1').flags.tags).toEqual(['seccomp', 'libpathrs']);
  });
  test('every build records the rules it applied and the known differences', () => {
    const r = recipeFor(runc, '1.2.0');
    expect(r.rules).toHaveLength(2);
    expect(r.notes.join(' ')).toMatch(/libseccomp/);
  });
});

describe("the nerdctl recipe follows its Makefile's binaries target", () => {
  // Transcribed by hand from the Makefile of the v2.1.3 module zip: GO_BUILD=CGO_ENABLED=0 go build
  // $(GO_TAGS) -ldflags "$(GO_BUILD_LDFLAGS) -X $(PACKAGE)/pkg/version.Version=$(VERSION)
  // -X $(PACKAGE)/pkg/version.Revision=$(REVISION)" -o _output/nerdctl ./cmd/nerdctl, GO_BUILD_LDFLAGS
  // "-s -w", BUILDTAGS empty (so no -tags), VERSION git describe --tags, REVISION git rev-parse HEAD.
  const nerdctl = GO_RECIPES.nerdctl!;
  test('2.1.3: no cgo, no tags, no -trimpath, version and full revision stamped', () => {
    const inv = goInvocation(recipeFor(nerdctl, '2.1.3').flags, {
      version: '2.1.3',
      commit: 'v2.1.3-0-gff932385',
      // The Makefile's VERSION: `git describe --tags` at the release tag.
      tag: 'v2.1.3',
      revision: 'ff9323859a8d7892d8d72380a17b99395ef9a516',
      toolchain: 'go1.24.11',
    });
    expect(inv.steps).toEqual([
      [
        'build',
        '-ldflags',
        '-X github.com/containerd/nerdctl/v2/pkg/version.Version=v2.1.3 -X github.com/containerd/nerdctl/v2/pkg/version.Revision=ff9323859a8d7892d8d72380a17b99395ef9a516 -s -w',
        '-o',
        'nerdctl',
        './cmd/nerdctl',
      ],
    ]);
    expect(inv.env).toEqual({ CGO_ENABLED: '0', GOTOOLCHAIN: 'go1.24.11', GOFLAGS: '-mod=mod' });
  });
  test('1.x is another module path: refused with the reason', () => {
    expect(recipeFor(nerdctl, '1.7.7').unsupported).toMatch(/nerdctl\/v2/);
    expect(recipeFor(nerdctl, '2.0.0').unsupported).toBeNull();
  });
});

describe('toolchain and commit stamps', () => {
  test('the Go of a Dockerfile: a minor (runc) or a patch (containerd)', () => {
    expect(
      dockerfileGoVersion('ARG GO_VERSION=1.22\nARG BATS_VERSION=v1.9.0\nFROM golang:${GO_VERSION}'),
    ).toBe('1.22');
    expect(dockerfileGoVersion('ARG UBUNTU_VERSION=20.04\nARG GO_VERSION=1.25.12\nARG GO_IMAGE=golang')).toBe(
      '1.25.12',
    );
    expect(dockerfileGoVersion('FROM debian')).toBeNull();
  });
  test('a named patch when the proxy lists it, else the newest patch of its minor', () => {
    const listing =
      'golang.org/toolchain v0.0.1-go1.25.11.linux-amd64 v0.0.1-go1.25.14.linux-amd64 v0.0.1-go1.27.2.linux-amd64';
    expect(pickToolchain(listing, '1.25.11', 'amd64')).toBe('go1.25.11');
    expect(pickToolchain(listing, '1.25.12', 'amd64')).toBe('go1.25.14');
    expect(pickToolchain(listing, '1.25', 'amd64')).toBe('go1.25.14');
    expect(pickToolchain(listing, '1.27.2', 'arm64')).toBeNull();
  });
  test('the newest patch of that minor the proxy lists, for this architecture', () => {
    const listing =
      'golang.org/toolchain v0.0.1-go1.22.2.linux-amd64 v0.0.1-go1.22.12.linux-amd64 v0.0.1-go1.22.9.linux-amd64 v0.0.1-go1.22.13.linux-arm64 v0.0.1-go1.220.1.linux-amd64 v0.0.1-go1.23.1.linux-amd64';
    expect(newestToolchain(listing, '1.22', 'amd64')).toBe('go1.22.12');
    expect(newestToolchain(listing, '1.21', 'amd64')).toBeNull();
  });
  test('a release tag stamps what git describe --long --always prints there', () => {
    expect(describeCommit('v1.2.0', '0b9fa21be2bcba45f6d9d748b4bcf70cfbffbc19')).toBe('v1.2.0-0-g0b9fa21b');
    expect(describeCommit(null, '0b9fa21be2bcba45f6d9d748b4bcf70cfbffbc19')).toBe('0b9fa21b');
  });
});

describe('what a source lists', () => {
  const listing =
    'github.com/opencontainers/runc v0.1.1 v1.0.0-rc9 v1.1.5 v1.1.10 v1.1.12 v1.2.3 v1.3.0 v1.5.0-rc.2 v1.5.0 v1.6.0-rc.1\n';
  test('newest first, without v', () => {
    expect(parseGoVersions(listing)).toEqual([
      '1.6.0-rc.1',
      '1.5.0',
      '1.5.0-rc.2',
      '1.3.0',
      '1.2.3',
      '1.1.12',
      '1.1.10',
      '1.1.5',
      '1.0.0-rc9',
      '0.1.1',
    ]);
  });
  test('the newest release of each minor, in the order given', () => {
    expect(newestPerMinor(parseGoVersions(listing))).toEqual(['1.5.0', '1.3.0', '1.2.3', '1.1.12', '0.1.1']);
    expect(newestPerMinor(['2.0.13', '2.0.14', '1.7.35', '2.1.0-rc.1'])).toEqual(['2.0.14', '1.7.35']);
  });
  test('a range: both ends, oldest first, pre-releases only when an end is one', () => {
    const all = parseGoVersions(listing);
    expect(selectRange(all, '1.1.5', '1.5.0')).toEqual([
      '1.1.5',
      '1.1.10',
      '1.1.12',
      '1.2.3',
      '1.3.0',
      '1.5.0',
    ]);
    expect(selectRange(all, '1.3.0', '1.6.0-rc.1')).toEqual(['1.3.0', '1.5.0-rc.2', '1.5.0', '1.6.0-rc.1']);
    expect(() => selectRange(all, '1.1.6', '1.5.0')).toThrow(/start 1\.1\.6 is not among/);
    expect(() => selectRange(all, '1.5.0', '1.1.5')).toThrow(RbError);
  });
});

describe('the install plan of the build sources', () => {
  const plan = (source: 'go' | 'git', specs: string[], extra = {}) =>
    buildPlan({
      specs: specs.map((s) => {
        const [name, version] = s.split('@');
        return { name: name as 'runc', version: version ?? null, path: null };
      }),
      source,
      prefix: '/opt/rb',
      suites: [],
      ...extra,
    });
  test('a go build has no directory before the toolchain is known, and prints how it is built', () => {
    const p = plan('go', ['runc@1.2.0']);
    expect(p.steps[0]!.dir).toBeNull();
    expect(p.steps[0]!.handler).toBe('runc-1.2.0');
    expect(formatPlan(p)).toMatch(
      /build 1\.2\.0 as its release is built .*\/opt\/rb\/runc\/<version>\+<toolchain>/,
    );
  });
  test('refusals name the field and the fix', () => {
    expect(() => plan('go', ['crun@1.19'])).toThrow(/no build recipe for crun/);
    expect(() => plan('git', ['runc@main'])).toThrow(/--git-dir/);
    expect(() => plan('git', ['runc@main'], { gitDir: 'relative/runc' })).toThrow(/absolute/);
    expect(() => plan('go', ['runc@1.2.0'], { toolchain: 'gcc' })).toThrow(/not a Go toolchain/);
    expect(plan('go', ['runc@1.2.0'], { toolchain: 'go1.23.4' }).toolchain).toBe('go1.23.4');
  });
});
