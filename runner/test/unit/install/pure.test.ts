import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { parseSpec, parseSpecList, handlerName } from '../../../src/install/components.ts';
import { binLinks, buildPlan, formatPlan, installedBinaries } from '../../../src/install/plan.ts';
import { buildInstallRecord, type InstalledComponent } from '../../../src/install/record.ts';
import { parseChecksumFile, pinnedDigest } from '../../../src/install/checksum.ts';
import {
  upstreamVersion,
  dependencyNames,
  parseMadison,
  requiredGlibc,
  parseControlStanza,
} from '../../../src/install/debian.ts';
import { applyMirror, assetUrls } from '../../../src/install/release.ts';
import { COMPONENTS } from '../../../src/install/components.ts';
import { parseReportedVersion, sameVersion } from '../../../src/install/versions.ts';

describe('specs', () => {
  test.each([
    ['runc@1.3.6', { name: 'runc', version: '1.3.6', path: null }],
    ['crun@latest', { name: 'crun', version: 'latest', path: null }],
    ['runc', { name: 'runc', version: null, path: null }],
    ['runc@/usr/sbin/runc', { name: 'runc', version: null, path: '/usr/sbin/runc' }],
    ['crio@1.34.0', { name: 'cri-o', version: '1.34.0', path: null }],
  ])('%s', (text, expected) => expect(parseSpec(text)).toEqual(expected));

  test.each(['dockerd@1', 'runc@', 'runc@1.0;rm -rf /'])('refuses %s with a named error', (text) => {
    expect(() => parseSpec(text)).toThrow(RbError);
    expect(() => parseSpec(text)).toThrow(text.split('@')[0]!.length > 0 ? /"/ : /./);
  });

  test('lists are split on newlines, commas and spaces (as action inputs are written)', () => {
    expect(parseSpecList('runc@1.1.5, runc@1.3.6\ncrun@1.28  ').map((s) => `${s.name}@${s.version}`)).toEqual(
      ['runc@1.1.5', 'runc@1.3.6', 'crun@1.28'],
    );
  });

  test('handler names are valid CRI handler names', () => {
    expect(handlerName('runc', '1.3.6')).toBe('runc-1.3.6');
    expect(handlerName('runsc', '20240729.0')).toBe('runsc-20240729.0');
    expect(handlerName('youki', '0.7.0+x')).toBe('youki-0.7.0-x');
  });
});

describe('plan', () => {
  const req = (specs: string, source: 'release' | 'distro' | 'path' | 'go' = 'release') => ({
    specs: parseSpecList(specs),
    source,
    prefix: '/opt/rb',
    suites: ['bookworm', 'sid'],
  });

  test('one directory per component and version, one handler per OCI runtime@version', () => {
    const plan = buildPlan(req('containerd@1.7.24 runc@1.1.5 runc@1.3.6 crictl@1.31.1'));
    expect(plan.steps.map((s) => [s.dir, s.handler])).toEqual([
      ['/opt/rb/containerd/1.7.24', null],
      ['/opt/rb/runc/1.1.5', 'runc-1.1.5'],
      ['/opt/rb/runc/1.3.6', 'runc-1.3.6'],
      ['/opt/rb/crictl/1.31.1', null],
    ]);
    const text = formatPlan(plan);
    expect(text).toContain('runc@1.3.6');
    expect(text).toContain('→ /opt/rb/runc/1.3.6');
    expect(text).toContain('handler runc-1.3.6');
  });

  test('latest is resolved at install time; the plan says so', () => {
    const plan = buildPlan(req('crun@latest', 'distro'));
    expect(plan.steps[0]!.dir).toBeNull();
    expect(formatPlan(plan)).toContain('/opt/rb/crun/<version resolved at install>');
  });

  test.each([
    ['runc', 'release', /needs a version/],
    ['runsc@20240729.0', 'distro', /cannot provide runsc/],
    ['cri-o@1.34.0', 'distro', /cannot provide cri-o/],
    ['sysbench@1.0.20', 'release', /cannot provide sysbench/],
    ['kata@3.0.0', 'release', /cannot provide kata/],
    ['runc@1.1.5 runc@1.1.5', 'release', /requested twice/],
    ['runc@/usr/sbin/runc runc@/usr/sbin/runc', 'go', /requested twice/],
    ['', 'release', /nothing to install/],
  ] as const)('%s from %s is refused', (specs, source, message) => {
    expect(() => buildPlan(req(specs, source))).toThrow(message);
  });

  test('a component named by its binary is taken from there whatever the source of the others', () => {
    const plan = buildPlan(req('containerd@/usr/bin/containerd runc@1.3.6', 'go'));
    expect(plan.steps.map((s) => [s.spec.name, s.source, s.version, s.dir])).toEqual([
      ['containerd', 'path', null, null],
      ['runc', 'go', '1.3.6', null],
    ]);
  });

  test('a relative prefix is refused', () => {
    expect(() => buildPlan({ ...req('runc@1.1.5'), prefix: 'opt' })).toThrow(/absolute/);
  });

  test('--path-dir: absolute directories, path source only', () => {
    const dirs = ['/work/shared/tools/cri-o', '/work/shared/tools/cri-tools'];
    expect(buildPlan({ ...req('cri-o crictl', 'path'), pathDirs: dirs }).pathDirs).toEqual(dirs);
    expect(buildPlan(req('runc', 'path')).pathDirs).toEqual([]);
    expect(formatPlan(buildPlan({ ...req('cri-o', 'path'), pathDirs: dirs }))).toContain(
      'use crio found in /work/shared/tools/cri-o, /work/shared/tools/cri-tools, PATH, version read from it',
    );
    expect(() => buildPlan({ ...req('cri-o', 'path'), pathDirs: ['tools/cri-o'] })).toThrow(
      /--path-dir "tools\/cri-o" is not an absolute path/,
    );
    expect(() => buildPlan({ ...req('runc@1.1.5'), pathDirs: ['/x'] })).toThrow(
      /only makes sense with --source path/,
    );
  });
});

describe('layout of an installed component', () => {
  test('bin/<name> for what the source provides: the CRI-O bundle has no Debian package', () => {
    expect(installedBinaries(COMPONENTS['cri-o'], 'release', '/opt/rb/cri-o/1.36.3')).toEqual({
      crio: '/opt/rb/cri-o/1.36.3/bin/crio',
      conmon: '/opt/rb/cri-o/1.36.3/bin/conmon',
      pinns: '/opt/rb/cri-o/1.36.3/bin/pinns',
    });
    // Debian's runsc lacks the shim, so a distro containerd has no release-only companions either.
    expect(Object.keys(installedBinaries(COMPONENTS.containerd, 'distro', '/d'))).toEqual([
      'containerd',
      'containerd-shim-runc-v2',
      'ctr',
    ]);
  });

  test('bin/ links are relative to bin/, and a patched copy already in bin/ gets none', () => {
    expect(binLinks({ runc: 'bin/runc', crio: 'root/cri-o/bin/crio', ctr: 'root/usr/bin/ctr' })).toEqual([
      { link: 'bin/crio', target: '../root/cri-o/bin/crio' },
      { link: 'bin/ctr', target: '../root/usr/bin/ctr' },
    ]);
  });
});

describe('install record', () => {
  const component = (
    c: Partial<InstalledComponent> & Pick<InstalledComponent, 'name' | 'role' | 'version' | 'binaries'>,
  ) =>
    ({
      source: 'release',
      dir: null,
      reported: c.version,
      detail: '',
      createdByThisInstall: true,
      ...c,
    }) as InstalledComponent;

  test('handlers, the containerd and CRI-O binaries for stack up, crictl, and the stack config beside the record', () => {
    const { record, stackConfigText } = buildInstallRecord({
      prefix: '/opt/rb',
      source: 'release',
      statePath: '/opt/rb/state/install.json',
      createdAt: '2026-11-23T00:00:00.000Z',
      created: ['/opt/rb/runc', '/opt/rb/runc/1.3.6', '/opt/rb/runc'],
      components: [
        component({
          name: 'containerd',
          role: 'cri',
          version: '2.1.9',
          binaries: { containerd: '/c/containerd', ctr: '/c/ctr' },
        }),
        component({
          name: 'cri-o',
          role: 'cri',
          version: '1.36.3',
          binaries: { crio: '/o/crio', pinns: '/o/pinns' },
        }),
        component({ name: 'runc', role: 'oci', version: '1.3.6', binaries: { runc: '/r/runc' } }),
        component({
          name: 'runsc',
          role: 'oci',
          version: '20240729.0',
          binaries: { runsc: '/g/runsc', 'containerd-shim-runsc-v1': '/g/shim' },
        }),
        component({ name: 'crictl', role: 'tool', version: '1.36.0', binaries: { crictl: '/t/crictl' } }),
      ],
    });
    expect(record.handlers).toEqual([
      { name: 'runc-1.3.6', binary: '/r/runc', kind: 'runc' },
      { name: 'runsc-20240729.0', binary: '/g/runsc', kind: 'runsc' },
    ]);
    expect(record.containerd).toEqual([{ version: '2.1.9', binary: '/c/containerd' }]);
    expect(record.crio).toEqual([{ version: '1.36.3', binary: '/o/crio', pinns: '/o/pinns', conmon: null }]);
    expect(record.crictl).toBe('/t/crictl');
    expect(record.stackConfig).toBe('/opt/rb/state/stack.yaml');
    expect(record.created).toEqual(['/opt/rb/runc', '/opt/rb/runc/1.3.6']);
    expect(stackConfigText).toBe(
      [
        '# Written by runtime-bench install: one CRI handler per OCI runtime@version.',
        'stack:',
        '  extraHandlers:',
        '    - name: runc-1.3.6',
        '      binary: /r/runc',
        '      kind: runc',
        '    - name: runsc-20240729.0',
        '      binary: /g/runsc',
        '      kind: runsc',
        '',
      ].join('\n'),
    );
  });
});

describe('checksums', () => {
  const hex = 'ab'.repeat(32);
  const other = 'cd'.repeat(32);
  test.each([
    [`${hex}\n`, 'crictl-v1.31.1-linux-amd64.tar.gz', hex],
    [`${hex}  containerd-1.7.24-linux-amd64.tar.gz\n`, 'containerd-1.7.24-linux-amd64.tar.gz', hex],
    [`${other}  runc.arm64\n${hex} *runc.amd64\n`, 'runc.amd64', hex],
    [`${other}  runc.arm64\n${hex}  runc.amd64\n`, 'runc.s390x', null],
    [`${hex.slice(2)}  runc.amd64\n`, 'runc.amd64', null],
    [`${other}  ./dist/runc.amd64\n`, 'runc.amd64', other],
  ])('parse %#', (text, file, expected) => expect(parseChecksumFile(text, file, 'sha256')).toBe(expected));

  test('sha512 files need 128 hex digits', () => {
    expect(parseChecksumFile(`${'e'.repeat(128)}  runsc\n`, 'runsc', 'sha512')).toBe('e'.repeat(128));
    expect(parseChecksumFile(`${hex}  runsc\n`, 'runsc', 'sha512')).toBeNull();
  });

  test('pinned digests: extra table, algorithm prefix checked', () => {
    expect(
      pinnedDigest('runc@1.3.6/runc.amd64', 'sha256', {
        'runc@1.3.6/runc.amd64': `sha256:${hex.toUpperCase()}`,
      }),
    ).toBe(hex);
    expect(pinnedDigest('runc@9.9.9/runc.amd64', 'sha256', {})).toBeNull();
    expect(() => pinnedDigest('k', 'sha256', { k: `sha512:${hex}` })).toThrow(/not a sha256 digest/);
    expect(() => pinnedDigest('k', 'sha256', { k: 'sha256:1234' })).toThrow(/not a sha256 digest/);
  });
});

describe('release URLs', () => {
  test('templates follow the upstream layouts', () => {
    expect(assetUrls(COMPONENTS.containerd.release![0]!, '1.7.24', 'x64')).toEqual({
      url: 'https://github.com/containerd/containerd/releases/download/v1.7.24/containerd-1.7.24-linux-amd64.tar.gz',
      checksumUrl:
        'https://github.com/containerd/containerd/releases/download/v1.7.24/containerd-1.7.24-linux-amd64.tar.gz.sha256sum',
    });
    expect(assetUrls(COMPONENTS.runsc.release![0]!, '20240729.0', 'arm64').url).toBe(
      'https://storage.googleapis.com/gvisor/releases/release/20240729.0/aarch64/runsc',
    );
    expect(assetUrls(COMPONENTS.crun.release![0]!, '1.21', 'x64').checksumUrl).toBeNull();
  });

  test('a mirror keeps host and path', () => {
    expect(applyMirror('https://github.com/a/b/c.tgz?x=1', 'http://127.0.0.1:8080/m/')).toBe(
      'http://127.0.0.1:8080/m/github.com/a/b/c.tgz?x=1',
    );
    expect(applyMirror('https://github.com/a', undefined)).toBe('https://github.com/a');
  });
});

describe('Debian metadata', () => {
  test.each([
    ['1.6.20~ds1-1+deb12u3', '1.6.20'],
    ['1.3.6+ds1-1', '1.3.6'],
    ['1.28-1', '1.28'],
    ['2:1.1.15+ds1-2', '1.1.15'],
    ['0~20240729.0-7+b1', '0~20240729.0'],
    ['1.0.20+ds-9', '1.0.20'],
  ])('upstream of %s is %s', (deb, up) => expect(upstreamVersion(deb)).toBe(up));

  test('dependency names keep the first alternative, drop version constraints and arch qualifiers', () => {
    expect(dependencyNames('libc6 (>= 2.38), libseccomp2 (>= 2.5.0) | libfoo, perl:any')).toEqual([
      'libc6',
      'libseccomp2',
      'perl',
    ]);
  });

  test('madison lines (real apt-cache output)', () => {
    const text = [
      '      runc | 1.3.6+ds1-1 | http://deb.debian.org/debian sid/main amd64 Packages',
      '      runc | 1.1.5+ds1-1 | http://deb.debian.org/debian bookworm/main Sources',
    ].join('\n');
    expect(parseMadison(text)).toEqual([{ package: 'runc', version: '1.3.6+ds1-1' }]);
  });

  test('control stanza with continuation lines, first stanza only', () => {
    const fields = parseControlStanza(
      'Package: runc\nVersion: 1.3.6+ds1-1\nDescription: x\n more\n\nPackage: other\n',
    );
    expect(fields).toEqual({ Package: 'runc', Version: '1.3.6+ds1-1', Description: 'x\nmore' });
  });

  test('glibc requirement is the newest GLIBC_ version string in the binary', () => {
    const bytes = Buffer.from('\0GLIBC_2.2.5\0GLIBC_2.38\0GLIBC_2.4\0GLIBC_PRIVATE\0');
    expect(requiredGlibc(bytes)).toBe('2.38');
    expect(requiredGlibc(Buffer.from('static go binary'))).toBeNull();
  });
});

describe('reported versions', () => {
  test('crio and crictl', () => {
    const crio = 'crio version 1.36.3\n   GitCommit:      v1.36.3\n   GoVersion:      go1.26.8\n';
    expect(parseReportedVersion('cri-o', crio)).toBe('1.36.3');
    expect(parseReportedVersion('crictl', 'crictl version 1.36.0\n')).toBe('1.36.0');
    expect(parseReportedVersion('crictl', 'crictl version v1.36.0\n')).toBe('1.36.0');
  });

  test.each([
    ['containerd', 'containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3', '1.6.20'],
    ['containerd', 'containerd github.com/containerd/containerd/v2 2.1.9+unknown ', '2.1.9'],
    [
      'containerd',
      'containerd github.com/containerd/containerd v1.7.24 88bf19b2105c8b17560993bee28a01ddc2f97182',
      '1.7.24',
    ],
    ['runc', 'runc version 1.3.6+ds1\ncommit: 1.3.6+ds1-1\nspec: 1.2.1\ngo: go1.26.5', '1.3.6'],
    ['crun', 'crun version 1.28\ncommit: abc\nrundir: /run/crun', '1.28'],
    ['crictl', 'crictl version v1.31.1', '1.31.1'],
    ['runsc', 'runsc version release-20240729.0\nspec: 1.1.0-rc.1', '20240729.0'],
    ['sysbench', 'sysbench 1.0.20', '1.0.20'],
    ['youki', 'no version here', null],
  ] as const)('%s: %s', (name, output, expected) =>
    expect(parseReportedVersion(name, output)).toBe(expected),
  );

  test('same version ignores a leading v and trailing .0', () => {
    expect(sameVersion('1.1', '1.1.0')).toBe(true);
    expect(sameVersion('v1.3.6', '1.3.6')).toBe(true);
    expect(sameVersion('1.3.6', '1.3.5')).toBe(false);
  });
});
