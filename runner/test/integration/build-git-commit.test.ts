// A runc commit between releases built from a clone with the git source, as its own tree builds:
// 9d2842debb8f (main, February 2024) embeds runc-dmz, which only its Makefile's `go generate
// ./libcontainer/dmz` makes; built by the rules of the nearest release (VERSION 1.1.0+dev) it
// failed, ending a real bisection (data/bisections/2026/11/27/). One build, cached under the
// installer's prefix by commit and toolchain, so a second run of this file compiles nothing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { buildComponent, realInstallEnv } from '../../src/install/index.ts';
import { onPath } from '../support/host.ts';
import { BUILD_PREFIX, buildTestsUnavailable } from '../support/module-checkout.ts';

/** A clone of github.com/opencontainers/runc with its history (bare is fine): RB_RUNC_GIT. */
const RUNC_GIT = process.env.RB_RUNC_GIT ?? '/work/.mirror/opencontainers+runc/repo';
const COMMIT = '9d2842debb8f43cee9b37003a02d859064057aa4';
/** A first build downloads go1.20's toolchain and the dependencies, then compiles runc-dmz and runc. */
const BUILD_BUDGET_MS = 20 * 60_000;

const unavailable =
  buildTestsUnavailable() ??
  (onPath('git') ? null : 'needs git') ??
  (existsSync(RUNC_GIT) ? null : `no runc clone at ${RUNC_GIT} (set RB_RUNC_GIT)`);
if (unavailable) console.warn(`SKIPPED the runc commit build: ${unavailable}`);

/** What the clone itself says of the commit, read with git, not with our code. */
const git = (...args: string[]) =>
  execFileSync('git', ['-C', RUNC_GIT, ...args], { encoding: 'utf8' }).trim();

describe.skipIf(unavailable !== null)('a runc commit built as its own tree builds', () => {
  test(
    `runc ${COMMIT.slice(0, 12)} (needs runc-dmz): go generate, then static-pie; --version names the commit`,
    { timeout: 2 * BUILD_BUDGET_MS },
    async () => {
      const env = realInstallEnv(() => undefined);
      const build = () =>
        buildComponent(env, {
          component: 'runc',
          source: 'git',
          gitDir: RUNC_GIT,
          version: COMMIT,
          prefix: BUILD_PREFIX,
        });
      const first = await build();
      const version = git('show', `${COMMIT}:VERSION`);
      const describe = git('describe', '--long', '--always', COMMIT);
      const dockerfileGo = /^ARG GO_VERSION=(\d+\.\d+)/m.exec(git('show', `${COMMIT}:Dockerfile`))![1]!;
      expect(version).toBe('1.1.0+dev');
      expect(first.version).toBe(`1.1.0-g${COMMIT.slice(0, 12)}`);
      expect(first.record.commit).toBe(COMMIT);
      expect(first.record.toolchain.startsWith(`go${dockerfileGo}.`)).toBe(true);
      expect(first.record.command[0]).toBe('go generate -tags seccomp urfave_cli_no_docs ./libcontainer/dmz');
      expect(first.record.command[1]).toContain('-buildmode=pie');

      const out = execFileSync(first.binary, ['--version'], { encoding: 'utf8' });
      expect(out).toContain(`runc version ${version}\n`);
      expect(out).toContain(`commit: ${describe}\n`);
      expect(describe).toMatch(new RegExp(`-g${COMMIT.slice(0, 7)}[0-9a-f]*$`));
      expect(out).toContain(`go: ${first.record.toolchain}\n`);
      const file = execFileSync('file', ['-b', first.binary], { encoding: 'utf8' });
      expect(file).toMatch(/static-pie linked/);
      expect(file).toMatch(/, stripped/);

      const again = await build();
      expect(again.cached).toBe(true);
      expect(again.record).toEqual(first.record);
    },
  );
});
