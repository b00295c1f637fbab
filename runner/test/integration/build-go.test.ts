// Builds of real runc releases from the Go module proxy and of nerdctl from git (dependencies from
// the proxy), as their releases build them. Cached under /opt/runtime-bench (the default prefix)
// by (component, version, toolchain), so only the first run on a machine compiles; the cache is
// tested by building twice.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ComponentBuildSchema } from '@runtime-bench/schemas';
import { buildComponent, realInstallEnv } from '../../src/install/index.ts';
import { InstallRecordSchema } from '../../src/install/record.ts';
import { runCli } from '../support/cli.ts';
import { onPath } from '../support/host.ts';
import {
  BUILD_PREFIX,
  buildTestsUnavailable,
  moduleDir,
  taggedCheckout,
} from '../support/module-checkout.ts';

const PREFIX = BUILD_PREFIX;
/** A first build downloads a Go toolchain and the module's dependencies, then compiles cgo: minutes. */
const BUILD_BUDGET_MS = 20 * 60_000;
const unavailable = buildTestsUnavailable();
if (unavailable) console.warn(`SKIPPED build tests: ${unavailable}`);

/**
 * The upstream tag's commit (or its first 12 hex digits, as the release's `--version` prints it),
 * not read from our code. `optional`: the module proxy's .info may name no Origin for that tag
 * (an older fetch), so the build may not know it: then the stamp can only be the tag, and the
 * record says why.
 */
const RELEASES = [
  { version: '1.1.5', commit: 'f19387a6bec4', optional: true, go: /^go1\.17\./, pie: false },
  {
    version: '1.2.0',
    commit: '0b9fa21be2bcba45f6d9d748b4bcf70cfbffbc19',
    optional: false,
    go: /^go1\.22\./,
    pie: true,
  },
];

const env = realInstallEnv(() => undefined);

describe.skipIf(unavailable !== null)('runc built from the Go module proxy', () => {
  for (const r of RELEASES) {
    test(
      `runc ${r.version}: stamped, static, stripped, cached`,
      { timeout: 2 * BUILD_BUDGET_MS },
      async () => {
        const first = await buildComponent(env, {
          component: 'runc',
          source: 'go',
          version: r.version,
          prefix: PREFIX,
        });
        expect(first.version).toBe(r.version);
        expect(first.dir).toBe(`${PREFIX}/runc/${r.version}+${first.record.toolchain}`);
        expect(first.record.toolchain).toMatch(r.go);
        const out = execFileSync(first.binary, ['--version'], { encoding: 'utf8' });
        expect(out).toMatch(new RegExp(`^runc version ${r.version.replace(/\./g, '\\.')}\\n`));
        const known = first.record.commit;
        if (known === null) {
          expect(r.optional).toBe(true);
          expect(first.record.notes.join('\n')).toContain(
            `github.com/opencontainers/runc@v${r.version}: the source commit is unknown`,
          );
        } else expect(known.startsWith(r.commit)).toBe(true);
        expect(out).toContain(
          known ? `commit: v${r.version}-0-g${r.commit.slice(0, 8)}\n` : `commit: v${r.version}\n`,
        );
        expect(out).toContain(`go: ${first.record.toolchain}`);
        expect(out).toMatch(/^libseccomp: \d/m);
        const file = execFileSync('file', ['-b', first.binary], { encoding: 'utf8' });
        expect(file).toMatch(r.pie ? /static-pie linked/ : /statically linked/);
        expect(file).toMatch(/, stripped/);
        if (!r.optional) expect(first.record.commit).toBe(r.commit);
        expect(
          ComponentBuildSchema.parse(JSON.parse(readFileSync(join(first.dir, 'BUILD.json'), 'utf8'))),
        ).toEqual(first.record);

        const inode = statSync(first.binary).ino;
        const again = await buildComponent(env, {
          component: 'runc',
          source: 'go',
          version: r.version,
          prefix: PREFIX,
        });
        expect(again.cached).toBe(true);
        expect(again.binary).toBe(first.binary);
        expect(statSync(again.binary).ino).toBe(inode);
        expect(again.record).toEqual(first.record);
      },
    );
  }

  test('the recipe agrees with the Makefile shipped in each module', { timeout: 120_000 }, () => {
    for (const r of RELEASES) {
      const dir = moduleDir('github.com/opencontainers/runc', `v${r.version}`);
      const build = JSON.parse(
        readFileSync(`${PREFIX}/runc/${r.version}+${readToolchain(r.version)}/BUILD.json`, 'utf8'),
      ) as {
        command: string[];
      };
      const makefile = readFileSync(join(dir, 'Makefile'), 'utf8');
      const release = readFileSync(join(dir, 'script/release_build.sh'), 'utf8');
      const command = build.command.at(-1)!;
      expect(release).toContain('EXTRA_LDFLAGS="${ldflags}" static');
      expect(release).toContain('local ldflags="-w -s -buildid="');
      expect(command).toContain('-w -s -buildid=');
      expect(makefile).toMatch(r.pie ? /-extldflags -static-pie/ : /-extldflags -static /);
      expect(/GO_BUILDMODE_STATIC := -buildmode=pie/.test(makefile)).toBe(command.includes('-buildmode=pie'));
      expect(makefile.includes('urfave_cli_no_docs')).toBe(command.includes('urfave_cli_no_docs'));
      expect(makefile.includes('$(GO) generate')).toBe(
        build.command.some((c) => c.startsWith('go generate')),
      );
      expect(makefile).toContain('-X main.version=$(VERSION)');
      expect(command).toContain(`-X main.version=${r.version}`);
    }
  });

  test(
    'install --source go runc@1.2.0: the record says how it was built',
    { timeout: BUILD_BUDGET_MS },
    async () => {
      const state = join(mkdtempSync(join(tmpdir(), 'rb-build-')), 'install.json');
      const r = await runCli(['install', '--source', 'go', '--state', state, 'runc@1.2.0']);
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      const record = InstallRecordSchema.parse(JSON.parse(readFileSync(state, 'utf8')));
      const runc = record.components[0]!;
      expect(runc).toMatchObject({ name: 'runc', version: '1.2.0', source: 'go', reported: '1.2.0' });
      expect(runc.build?.origin).toBe('github.com/opencontainers/runc@v1.2.0');
      expect(runc.build?.stamps).toEqual({ 'main.gitCommit': 'v1.2.0-0-g0b9fa21b', 'main.version': '1.2.0' });
      expect(record.handlers).toEqual([{ name: 'runc-1.2.0', binary: runc.binaries.runc, kind: 'runc' }]);
      // The build came from the cache: uninstalling this record must keep it.
      expect(runc.createdByThisInstall).toBe(false);
    },
  );
});

/**
 * A checkout (or bare clone) of github.com/containerd/nerdctl holding the tag v2.1.3: nerdctl's
 * module zip leaves out its nested module mod/tigron, so it builds from git (RB_NERDCTL_GIT).
 */
const NERDCTL_GIT = process.env.RB_NERDCTL_GIT ?? '/work/.mirror/containerd+nerdctl/repo';
const nerdctlGit = existsSync(NERDCTL_GIT)
  ? null
  : `no nerdctl checkout at ${NERDCTL_GIT} (set RB_NERDCTL_GIT)`;
if (!unavailable && nerdctlGit) console.warn(`SKIPPED the nerdctl build test: ${nerdctlGit}`);

describe.skipIf(unavailable !== null)('nerdctl from the Go module proxy', () => {
  test(
    'its module zip leaves out mod/tigron: refused, naming the git source',
    { timeout: 120_000 },
    async () => {
      const error = await buildComponent(env, {
        component: 'nerdctl',
        source: 'go',
        version: '2.1.3',
        prefix: mkdtempSync(join(tmpdir(), 'rb-build-')),
      }).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/replaces a module with \.\/mod\/tigron/);
    },
  );
});

describe.skipIf(unavailable !== null || !onPath('git') || nerdctlGit !== null)(
  'nerdctl built from git',
  () => {
    test(
      'nerdctl v2.1.3: version and full revision stamped as make binaries does, static, stripped, cached',
      { timeout: 2 * BUILD_BUDGET_MS },
      async () => {
        // The commit of the upstream tag v2.1.3 (the module proxy's Origin for it says the same).
        const revision = 'ff9323859a8d7892d8d72380a17b99395ef9a516';
        const build = () =>
          buildComponent(env, {
            component: 'nerdctl',
            source: 'git',
            gitDir: NERDCTL_GIT,
            version: 'v2.1.3',
            prefix: PREFIX,
          });
        const first = await build();
        // A git build is labelled by the version and the commit it was built from, so it never
        // shares a cache entry with the module proxy's build of that tag.
        expect(first.version).toBe(`2.1.3-g${revision.slice(0, 12)}`);
        // The Dockerfile of v2.1.3 says ARG GO_VERSION=1.24.
        expect(first.record.toolchain).toMatch(/^go1\.24\./);
        expect(first.record.commit).toBe(revision);
        expect(first.record.stamps).toEqual({
          'github.com/containerd/nerdctl/v2/pkg/version.Version': 'v2.1.3',
          'github.com/containerd/nerdctl/v2/pkg/version.Revision': revision,
        });
        expect(execFileSync(first.binary, ['--version'], { encoding: 'utf8' })).toBe(
          'nerdctl version 2.1.3\n',
        );
        // `version` prints the client's stamps, then fails for want of a containerd.
        const r = spawnSync(
          first.binary,
          [
            '--address',
            'unix:///nonexistent/c.sock',
            'version',
            '--format',
            '{{.Client.Version}} {{.Client.GitCommit}}',
          ],
          { encoding: 'utf8' },
        );
        expect(r.stdout.trim()).toBe(`v2.1.3 ${revision}`);
        const file = execFileSync('file', ['-b', first.binary], { encoding: 'utf8' });
        expect(file).toMatch(/statically linked/);
        expect(file).toMatch(/, stripped/);
        const again = await build();
        expect(again.cached).toBe(true);
        expect(again.record).toEqual(first.record);
      },
    );
  },
);

describe.skipIf(unavailable !== null || !onPath('git'))('runc built from a git checkout', () => {
  test(
    'a ref of a local checkout: stamped with its VERSION and git describe',
    { timeout: BUILD_BUDGET_MS },
    async () => {
      // A checkout of runc 1.2.0's tree with an annotated tag, as a maintainer's clone has.
      const { work, checkout, hash, describe } = taggedCheckout(
        'github.com/opencontainers/runc',
        'v1.2.0',
        'runc',
      );
      const built = await buildComponent(env, {
        component: 'runc',
        source: 'git',
        version: 'v1.2.0',
        gitDir: checkout,
        prefix: join(work, 'prefix'),
        toolchain: 'go1.22.12',
      });
      expect(built.version).toBe(`1.2.0-g${hash.slice(0, 12)}`);
      expect(built.record).toMatchObject({ source: 'git', commit: hash, origin: `${checkout}@v1.2.0` });
      const out = execFileSync(built.binary, ['--version'], { encoding: 'utf8' });
      expect(out).toContain('runc version 1.2.0\n');
      expect(out).toContain(`commit: ${describe}\n`);
      expect(describe).toMatch(/^v1\.2\.0-0-g[0-9a-f]{7,}$/);
    },
  );
});

function readToolchain(version: string): string {
  return execFileSync('ls', [`${PREFIX}/runc`], { encoding: 'utf8' })
    .split('\n')
    .find((d) => d.startsWith(`${version}+`))!
    .slice(version.length + 1);
}
