import { describe, expect, test } from 'vitest';
import {
  compareVersions,
  containerdCniBinKey,
  containerdConfigVersion,
  guessOciKind,
  incompatibility,
  parseOciVersion,
  parseSemver,
} from '../../../src/stack/versions.ts';

describe('version parsing (real --version outputs)', () => {
  test.each([
    ['containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3', '1.6.20'],
    ['containerd github.com/containerd/containerd/v2 v2.1.9 2.1.9~ds1-1', '2.1.9'],
    ['runc version 1.1.5+ds1', '1.1.5'],
    ['crun version 1.8.1', '1.8.1'],
    ['tini version 0.1.7_catatonit', '0.1.7'],
    ['BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.', '1.35.0'],
    ['sysbench 1.0.20', '1.0.20'],
    ['no version here', null],
  ])('%s → %s', (text, expected) => {
    expect(parseSemver(text)).toBe(expected);
  });

  test('runsc reports its release name', () => {
    expect(parseOciVersion('runsc', 'runsc version release-20260905.0\nspec: 1.1.0-rc.1')).toBe(
      'release-20260905.0',
    );
    expect(parseOciVersion('runc', 'runc version 1.3.6\ncommit: v1.3.6\nspec: 1.2.1')).toBe('1.3.6');
  });
});

describe('version rules', () => {
  test('numeric comparison, not lexical', () => {
    expect(compareVersions('1.10', '1.9')).toBeGreaterThan(0);
    expect(compareVersions('1.6.20', '1.6.20')).toBe(0);
    expect(compareVersions('1.7', '1.7.0')).toBe(0);
  });

  test('config version 3 from containerd 2.0 on', () => {
    expect(containerdConfigVersion('1.6.20')).toBe(2);
    expect(containerdConfigVersion('1.7.24')).toBe(2);
    expect(containerdConfigVersion('2.0.0')).toBe(3);
    expect(containerdConfigVersion('2.1.9')).toBe(3);
    // 2.0 reads only bin_dir; 2.1 added bin_dirs, later releases dropped bin_dir.
    expect(containerdCniBinKey('2.0.14')).toBe('bin_dir');
    expect(containerdCniBinKey('2.1.9')).toBe('bin_dirs');
    expect(containerdCniBinKey('2.4.2')).toBe('bin_dirs');
  });

  test('crun before 1.9 does not work with containerd 1.7 and later (stack.md)', () => {
    expect(incompatibility('1.6.20', 'crun', '1.8.1')).toBeNull();
    expect(incompatibility('1.7.24', 'crun', '1.8.1')).toMatch(/crun 1.8.1.*containerd 1.7.24/);
    expect(incompatibility('2.1.9', 'crun', '1.21')).toBeNull();
    expect(incompatibility('2.1.9', 'runc', '1.1.5')).toBeNull();
  });

  test('runtime kind from the binary name', () => {
    expect(guessOciKind('/opt/runtime-bench/runc/1.3.6/runc')).toBe('runc');
    expect(guessOciKind('/opt/x/crun-1.28')).toBe('crun');
    expect(guessOciKind('/usr/local/bin/runsc')).toBe('runsc');
    expect(guessOciKind('/usr/bin/kata-runtime')).toBeNull();
  });
});

describe('Go build info', () => {
  test('the module version of a go-installed runsc (whose --version says VERSION_MISSING)', async () => {
    const { goModuleVersion } = await import('../../../src/stack/versions.ts');
    // The build-info block as `go version -m` prints it, embedded between binary bytes.
    const info =
      '\u0000\u00ffgo1.26.8\npath\tgvisor.dev/gvisor/runsc\nmod\tgvisor.dev/gvisor\tv0.0.0-20260905035102-160fafc42237\th1:AU5+=\ndep\tgolang.org/x/sys\tv0.30.0\th1:x=\n\u0000';
    expect(goModuleVersion(Buffer.from(info, 'latin1'), 'gvisor.dev/gvisor')).toBe(
      'v0.0.0-20260905035102-160fafc42237',
    );
    expect(goModuleVersion(Buffer.from(info, 'latin1'), 'golang.org/x/sys')).toBeNull();
    expect(goModuleVersion(Buffer.from('no build info', 'latin1'), 'gvisor.dev/gvisor')).toBeNull();
  });
});
