// containerd built from the Go module proxy as `make release` builds it, for a 1.7 and a 2.x
// release: every binary of the release tarball that a stack runs (containerd, ctr, the runc shim)
// says the version it was stamped with, and is linked as the release's is. Cached under
// /opt/runtime-bench by (component, version, toolchain), so only a machine's first run compiles.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
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
/** A first build downloads a Go toolchain and containerd's dependencies, then compiles three binaries. */
const BUILD_BUDGET_MS = 20 * 60_000;
const unavailable = buildTestsUnavailable();
if (unavailable) console.warn(`SKIPPED containerd build tests: ${unavailable}`);

/** The module path each major lives at, from containerd's own go.mod (not from our recipe). */
const RELEASES = [
  { version: '1.7.35', pkg: 'github.com/containerd/containerd' },
  { version: '2.0.14', pkg: 'github.com/containerd/containerd/v2' },
];

const env = realInstallEnv(() => undefined);
const run = (bin: string, ...args: string[]) => execFileSync(bin, args, { encoding: 'utf8' });
const file = (bin: string) => execFileSync('file', ['-b', bin], { encoding: 'utf8' });

describe.skipIf(unavailable !== null)('containerd built from the Go module proxy', () => {
  for (const r of RELEASES) {
    test(
      `containerd ${r.version}: stamped, linked as the release, cached`,
      { timeout: 2 * BUILD_BUDGET_MS },
      async () => {
        const first = await buildComponent(env, {
          component: 'containerd',
          source: 'go',
          version: r.version,
          prefix: PREFIX,
        });
        expect(first.dir).toBe(`${PREFIX}/containerd/${r.version}+${first.record.toolchain}`);
        // The module's own go.mod names its path: the stamps follow it.
        const goMod = readFileSync(join(moduleDir(r.pkg, `v${r.version}`), 'go.mod'), 'utf8');
        expect(goMod).toMatch(new RegExp(`^module ${r.pkg.replace(/\//g, '\\/')}$`, 'm'));
        // The commit the module proxy names for the tag (its .info's Origin) is the revision; where
        // it names none, the revision stays empty rather than invented, and the record says why.
        const commit = first.record.commit;
        if (commit === null)
          expect(first.record.notes.join('\n')).toContain(
            `${r.pkg}@v${r.version}: the source commit is unknown`,
          );
        else expect(commit).toMatch(/^[0-9a-f]{40}$/);
        expect(run(first.binaries.containerd!, '--version')).toMatch(
          new RegExp(`^containerd ${r.pkg} v${r.version.replace(/\./g, '\\.')} ?${commit ?? ''}\\n$`),
        );
        expect(run(first.binaries.ctr!, '--version')).toMatch(
          new RegExp(`^ctr ${r.pkg} v${r.version.replace(/\./g, '\\.')}\\n$`),
        );
        const shim = run(first.binaries['containerd-shim-runc-v2']!, '-v');
        expect(shim).toMatch(new RegExp(`Version:\\s+v${r.version.replace(/\./g, '\\.')}\\n`));
        expect(shim).toContain(first.record.toolchain);
        // The release: containerd and ctr PIE against glibc, the shim static; all stripped.
        for (const bin of ['containerd', 'ctr']) {
          expect(file(first.binaries[bin]!)).toMatch(/pie executable.*dynamically linked/);
          expect(file(first.binaries[bin]!)).toMatch(/, stripped/);
        }
        expect(file(first.binaries['containerd-shim-runc-v2']!)).toMatch(/statically linked.*, stripped/);
        expect(
          ComponentBuildSchema.parse(JSON.parse(readFileSync(join(first.dir, 'BUILD.json'), 'utf8'))),
        ).toEqual(first.record);

        const again = await buildComponent(env, {
          component: 'containerd',
          source: 'go',
          version: r.version,
          prefix: PREFIX,
        });
        expect(again.cached).toBe(true);
        expect(again.binaries).toEqual(first.binaries);
      },
    );
  }

  test(
    'install --source go: the record lists the daemon for stack up and how it was built',
    { timeout: BUILD_BUDGET_MS },
    async () => {
      const state = join(mkdtempSync(join(tmpdir(), 'rb-build-')), 'install.json');
      const r = await runCli(['install', '--source', 'go', '--state', state, 'containerd@2.0.14']);
      expect(r.code).toBe(0);
      const record = InstallRecordSchema.parse(JSON.parse(readFileSync(state, 'utf8')));
      const c = record.components[0]!;
      expect(c).toMatchObject({ name: 'containerd', version: '2.0.14', source: 'go', reported: '2.0.14' });
      expect(Object.keys(c.binaries).sort()).toEqual(['containerd', 'containerd-shim-runc-v2', 'ctr']);
      expect(record.containerd).toEqual([{ version: '2.0.14', binary: c.binaries.containerd }]);
      expect(c.build?.stamps['github.com/containerd/containerd/v2/version.Version']).toBe('v2.0.14');
    },
  );
});

describe.skipIf(unavailable !== null || !onPath('git'))('containerd built from a git checkout', () => {
  test('the revision is the commit, the version the tag', { timeout: BUILD_BUDGET_MS }, async () => {
    const { work, checkout, hash } = taggedCheckout(
      'github.com/containerd/containerd/v2',
      'v2.0.14',
      'containerd',
    );
    const built = await buildComponent(env, {
      component: 'containerd',
      source: 'git',
      version: 'v2.0.14',
      gitDir: checkout,
      prefix: join(work, 'prefix'),
    });
    expect(built.record).toMatchObject({ source: 'git', commit: hash });
    expect(run(built.binary, '--version')).toBe(
      `containerd github.com/containerd/containerd/v2 v2.0.14 ${hash}\n`,
    );
  });
});
