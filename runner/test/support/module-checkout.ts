// Real upstream source for the build tests: a module version as the Go module proxy serves it, and
// a git checkout of that tree with an annotated release tag, as a maintainer's clone has.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRoot, onPath } from './host.ts';

/** The module cache directory of `module@version` (downloaded through the proxy if needed). */
export function moduleDir(module: string, version: string): string {
  return JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], {
      encoding: 'utf8',
      cwd: '/',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
    }),
  ).Dir as string;
}

/** A fresh git repository of that tree, one commit tagged `tag`; its work dir, commit and describe. */
export function taggedCheckout(
  module: string,
  tag: string,
  name: string,
): { work: string; checkout: string; hash: string; describe: string } {
  const work = mkdtempSync(join(tmpdir(), 'rb-git-'));
  const checkout = join(work, name);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', checkout, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], {
      encoding: 'utf8',
    }).trim();
  execFileSync('cp', ['-r', moduleDir(module, tag), checkout]);
  execFileSync('chmod', ['-R', 'u+w', checkout]);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', `${name} ${tag}`);
  git('tag', '-a', tag, '-m', tag);
  return { work, checkout, hash: git('rev-parse', 'HEAD'), describe: git('describe', '--long', '--always') };
}

/** Where the build tests put their cached builds: the install default, so CI builds once. */
export const BUILD_PREFIX = '/opt/runtime-bench';

/** Why the build tests cannot run here (they write the default prefix, run go and file), or null. */
export function buildTestsUnavailable(): string | null {
  if (!isRoot) return 'needs root (writes /opt/runtime-bench)';
  if (!onPath('go')) return 'needs go';
  if (!onPath('file')) return 'needs file(1)';
  return null;
}
