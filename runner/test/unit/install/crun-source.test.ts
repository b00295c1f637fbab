// crun from source, pure parts: what the Debian archive's source packages offer (parsed from real
// `apt-cache showsrc` answers, runner/test/fixtures/debian), which file is upstream's tarball and
// its sha256, the recipe's commands and build dependencies, the version check against a real
// `crun --version`, and how the plan takes the new source.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { recipeRefusal } from '../../../src/install/available.ts';
import {
  archiveUrl,
  offeredVersions,
  origTarball,
  parseChecksumsSha256,
  parseShowsrc,
  pickOffer,
} from '../../../src/install/debian-source.ts';
import { buildPlan, formatPlan } from '../../../src/install/plan.ts';
import {
  crunBuildDeps,
  crunCommands,
  crunInvocation,
  crunVersionProblem,
  gccToolchain,
  gitlinks,
  tarballCommit,
  tarballVersionHeader,
} from '../../../src/install/recipe-crun.ts';

const fixture = (...p: string[]) => readFileSync(join(import.meta.dirname, '../../fixtures', ...p), 'utf8');
const showsrc = (suite: string) => fixture('debian', `showsrc-crun-${suite}.txt`);
const allOffers = () => ['bookworm', 'trixie', 'sid'].flatMap((s) => parseShowsrc(showsrc(s), 'crun', s));

describe('the Debian source packages of crun', () => {
  test('each suite offers its version, with the directory and sha256 list of its files', () => {
    const trixie = parseShowsrc(showsrc('trixie'), 'crun', 'trixie');
    expect(trixie).toHaveLength(1);
    expect(trixie[0]).toMatchObject({
      version: '1.21',
      debianVersion: '1.21-1',
      suite: 'trixie',
      directory: 'pool/main/c/crun',
    });
    // The Checksums-Sha256 lines of the fixture, as written there.
    expect(trixie[0]!.files.map((f) => f.name)).toEqual([
      'crun_1.21-1.dsc',
      'crun_1.21.orig.tar.gz',
      'crun_1.21.orig.tar.gz.asc',
      'crun_1.21-1.debian.tar.xz',
    ]);
  });

  test('bookworm, trixie and sid offer three distinct versions, newest first', () => {
    expect(offeredVersions(allOffers())).toEqual(['1.28', '1.21', '1.8.1']);
  });

  test("the orig tarball is upstream's, with the size and sha256 the index gives", () => {
    const offer = pickOffer(allOffers(), 'crun', '1.21');
    const orig = origTarball(offer, 'crun');
    expect(orig).toEqual({
      name: 'crun_1.21.orig.tar.gz',
      size: 1788933,
      sha256: '4bfb700e764a4804a4de3ecf07753f4c391005356d60356df65d80ae0914c486',
    });
    expect(archiveUrl('http://deb.debian.org/debian/', offer, orig)).toBe(
      'http://deb.debian.org/debian/pool/main/c/crun/crun_1.21.orig.tar.gz',
    );
    // bookworm's is an .xz, found the same way; its Debian revision (+deb12u1) is not upstream's.
    const bookworm = pickOffer(allOffers(), 'crun', '1.8.1');
    expect(bookworm.debianVersion).toBe('1.8.1-1+deb12u1');
    expect(origTarball(bookworm, 'crun').name).toBe('crun_1.8.1.orig.tar.xz');
  });

  test('a version is found by its upstream or Debian name, latest is the newest; else the error lists them', () => {
    expect(pickOffer(allOffers(), 'crun', '1.21-1').suite).toBe('trixie');
    expect(pickOffer(allOffers(), 'crun', 'latest').version).toBe('1.28');
    expect(() => pickOffer(allOffers(), 'crun', '1.19')).toThrow(/crun 1\.19 is in none of the suites/);
    try {
      pickOffer(allOffers(), 'crun', '1.19');
    } catch (error) {
      expect((error as { hint: string }).hint).toContain('1.21 (trixie, 1.21-1)');
    }
  });

  test("a repacked tarball (Debian's runc +ds1) is refused: it is not upstream's release", () => {
    const runc = parseShowsrc(fixture('debian', 'showsrc-runc-sid.txt'), 'runc', 'sid');
    expect(runc.length).toBeGreaterThan(0);
    expect(() => origTarball(runc[0]!, 'runc')).toThrow(/a Debian repack, not upstream's release tarball/);
  });

  test('stanzas of other packages and lines that are no checksum are left out', () => {
    expect(parseShowsrc(showsrc('sid'), 'runc', 'sid')).toEqual([]);
    expect(parseChecksumsSha256('\nnot a line\n' + 'a'.repeat(64) + ' 12 x.tar.gz')).toEqual([
      { sha256: 'a'.repeat(64), size: 12, name: 'x.tar.gz' },
    ]);
  });
});

describe("crun's recipe", () => {
  test('a release tarball: configure, the version header, libocispec, crun; a checkout is autoreconf-ed first', () => {
    const tarball = crunInvocation('tarball', 2);
    expect(tarball.steps).toEqual([
      ['./configure'],
      ['make', 'git-version.h'],
      ['make', '-j2', '-C', 'libocispec', 'libocispec.la'],
      ['make', '-j2', 'crun'],
    ]);
    expect(tarball.env).toEqual({ LDFLAGS: '-s -w' });
    expect(crunCommands(tarball)[0]).toBe("LDFLAGS='-s -w' ./configure");
    expect(crunInvocation('git', 1).steps.slice(0, 3)).toEqual([
      ['mkdir', '-p', 'm4'],
      ['autoreconf', '-fi'],
      ['./configure'],
    ]);
  });

  test('build dependencies follow what configure.ac asks for', () => {
    const yajl = 'PKG_CHECK_MODULES([YAJL], [yajl >= 2.0.0])';
    expect(crunBuildDeps(yajl, 'tarball')).toEqual([
      'gcc',
      'make',
      'pkg-config',
      'python3',
      'libseccomp-dev',
      'libcap-dev',
      'libsystemd-dev',
      'libyajl-dev',
    ]);
    const jsonc = 'PKG_CHECK_MODULES([JSON_C], [json-c >= 0.15])';
    expect(crunBuildDeps(jsonc, 'tarball')).toContain('libjson-c-dev');
    expect(crunBuildDeps(jsonc, 'tarball')).not.toContain('libyajl-dev');
    expect(crunBuildDeps(yajl, 'git')).toEqual(
      expect.arrayContaining(['autoconf', 'automake', 'libtool', 'gperf']),
    );
  });

  test('a real crun --version passes for its version and commit, and fails for another', () => {
    const out = fixture('crun', 'crun-1.21-version.txt');
    const commit = '10269840aa07fb7e6b7e1acff6198692d8ff5c88';
    expect(crunVersionProblem(out, '1.21', commit)).toBeNull();
    expect(crunVersionProblem(out, '1.21', null)).toBeNull();
    expect(crunVersionProblem(out, '1.2', commit)).toMatch(/reports version 1\.21, expected 1\.2/);
    expect(crunVersionProblem(out, '1.21', 'f'.repeat(40))).toMatch(/does not report commit/);
    expect(crunVersionProblem('', '1.21', null)).toMatch(/no "crun version" line/);
    // A checkout past a tag: git describe's version.
    expect(crunVersionProblem('crun version 1.21-3-gabc\n', '1.21-3-gabc', null)).toBeNull();
  });

  test('the tarball header round-trips the commit; gcc names the toolchain', () => {
    const commit = '10269840aa07fb7e6b7e1acff6198692d8ff5c88';
    expect(tarballCommit(tarballVersionHeader(commit))).toBe(commit);
    expect(tarballCommit('# define GIT_VERSION "unknown"')).toBeNull();
    expect(gccToolchain('12.2.0\n')).toBe('gcc-12.2.0');
    expect(() => gccToolchain('')).toThrow(/gcc/);
  });

  test('gitlinks are the submodule entries of git ls-tree -r', () => {
    const sub = 'a'.repeat(40);
    const text = [
      `100644 blob ${'b'.repeat(40)}\tconfigure.ac`,
      `160000 commit ${sub}\tlibocispec`,
      `040000 tree ${'c'.repeat(40)}\tsrc`,
    ].join('\n');
    expect(gitlinks(text)).toEqual([{ path: 'libocispec', commit: sub }]);
  });
});

describe('the plan of a crun build', () => {
  const plan = (source: 'debian-source' | 'git' | 'go', spec: string, extra = {}) =>
    buildPlan({
      specs: [{ name: spec.split('@')[0] as 'crun', version: spec.split('@')[1] ?? null, path: null }],
      source,
      prefix: '/opt/rb',
      suites: ['bookworm', 'trixie', 'sid'],
      ...extra,
    });

  test('debian-source builds crun, any version or latest, and says how the download is checked', () => {
    const p = plan('debian-source', 'crun@1.21');
    expect(p.steps[0]!.dir).toBeNull();
    expect(p.steps[0]!.handler).toBe('crun-1.21');
    expect(formatPlan(p)).toMatch(/toolchain this host's gcc.*sha256 of the signed Sources index/);
    expect(plan('debian-source', 'crun@latest').steps[0]!.version).toBe('latest');
    expect(plan('git', 'crun@1.21', { gitDir: '/src/crun' }).steps[0]!.version).toBe('1.21');
  });

  test('refusals name the source that works', () => {
    expect(() => plan('go', 'crun@1.21')).toThrow(/no build recipe for crun from source "go"/);
    expect(() => plan('debian-source', 'runc@1.3.6')).toThrow(/no build recipe for runc/);
    expect(() => plan('debian-source', 'crun@1.21', { toolchain: 'go1.23.4' })).toThrow(/host's gcc/);
    expect(recipeRefusal('crun', '1.21', 'go')).toMatch(/--source debian-source or --source git/);
    expect(recipeRefusal('crun', '1.21', 'debian-source')).toBeNull();
    expect(recipeRefusal('runc', '1.3.6', 'debian-source')).toMatch(/builds crun only/);
  });
});
