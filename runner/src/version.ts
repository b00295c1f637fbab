import { execFileSync, type ExecFileSyncOptionsWithStringEncoding } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIRTY_COMMIT_SUFFIX } from '@runtime-bench/schemas/tool';
import { childEnv } from './util/child-env.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The tool's own version, from runner/package.json. */
export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }
).version;

/** The git commit the tool runs from, or null outside a checkout; "+dirty" when it has local changes. */
export function toolGitCommit(): string | null {
  try {
    const opts: ExecFileSyncOptionsWithStringEncoding = {
      cwd: packageDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      // Like every process we start: nothing of our environment (a token) beyond the allow-list.
      env: childEnv(process.env),
    };
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], opts).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], opts).trim();
    return dirty ? `${sha}${DIRTY_COMMIT_SUFFIX}` : sha;
  } catch {
    return null;
  }
}

/** What `runtime-bench --version` prints: the version, the commit it runs from, and Node. */
export function toolVersionLine(): string {
  const commit = toolGitCommit();
  return `runtime-bench ${TOOL_VERSION} (${commit ? `commit ${commit}` : 'commit unknown: not run from a git checkout'}), node ${process.version}`;
}

/** The `tool` record of a result: what wrote it, down to the commit (spawns git: call once per run). */
export function toolRecord(): {
  name: 'runtime-bench';
  version: string;
  gitCommit: string | null;
  node: string;
} {
  return { name: 'runtime-bench', version: TOOL_VERSION, gitCommit: toolGitCommit(), node: process.version };
}
