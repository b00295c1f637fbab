// Wiring shared by `publish` and `data verify`: a git runner authenticated for one remote, a
// redacting logger, and the documentation files that travel with the data.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RbError, errorMessage } from '../errors.ts';
import { authConfigEnv, redact, secretForms, tokenFromEnv } from './auth.ts';
import { createGitRunner, gitEnvironment, type GitRunner } from './git.ts';
import { DEFAULT_DATA_BRANCH, SCHEMAS_DIR } from '../results/layout.ts';
import type { DocFile } from './plan.ts';

export interface RemoteGit {
  git: GitRunner;
  /** Strings that must never be printed (the token and its encoded form). */
  secrets: string[];
  /** The variable the token came from, if any. */
  tokenSource: string | undefined;
}

/** Refuses a remote or branch git would read as an option (`--upload-pack=…`) or an invalid ref. */
export async function checkNames(
  env: Readonly<Record<string, string | undefined>>,
  remote: string | undefined,
  branch: string,
): Promise<void> {
  if (remote !== undefined && (remote === '' || remote.startsWith('-'))) {
    throw new RbError(
      'USAGE_REMOTE',
      `invalid remote ${JSON.stringify(remote)}`,
      'pass a remote name or URL',
    );
  }
  if (branch.startsWith('refs/')) {
    throw new RbError(
      'USAGE_BRANCH',
      `--branch ${JSON.stringify(branch)} is a ref, not a branch name (it would become refs/heads/${branch})`,
      `give the name alone, e.g. --branch ${branch.replace(/^refs\/(heads\/|remotes\/[^/]+\/)?/, '') || DEFAULT_DATA_BRANCH}`,
    );
  }
  const git = createGitRunner(gitEnvironment(env));
  const ok =
    branch !== '' &&
    !branch.startsWith('-') &&
    (await git.run(['check-ref-format', `refs/heads/${branch}`])).exitCode === 0;
  if (!ok) {
    throw new RbError(
      'USAGE_BRANCH',
      `invalid branch name ${JSON.stringify(branch)}`,
      'e.g. --branch benchmark-data',
    );
  }
}

/**
 * A git runner for talking to `remote` from `repo`. When a token is set (see TOKEN_ENV_VARS) and
 * the remote is reached over HTTP(S), git receives it as an extra header through GIT_CONFIG_*
 * environment variables, scoped to the remote's origin; otherwise git's own credentials apply.
 */
export async function gitForRemote(
  env: Readonly<Record<string, string | undefined>>,
  repo: string,
  remote: string,
): Promise<RemoteGit> {
  const plain = createGitRunner(gitEnvironment(env));
  const token = tokenFromEnv(env);
  if (!token) return { git: plain, secrets: [], tokenSource: undefined };
  // Fetch and push URLs of a configured remote (insteadOf applied); a URL given directly is itself.
  const urls = [remote];
  for (const args of [
    ['remote', 'get-url', remote],
    ['remote', 'get-url', '--push', remote],
  ]) {
    const got = await plain.run(args, { cwd: repo }).catch(() => undefined);
    if (got?.exitCode === 0) urls.push(...got.stdout.split('\n').filter((u) => u.trim() !== ''));
  }
  const auth = authConfigEnv(token.token, urls, env);
  return {
    git: createGitRunner(gitEnvironment(env, auth)),
    secrets: secretForms(token.token),
    tokenSource: token.source,
  };
}

/** A logger that masks secrets and URL credentials before writing a line. */
export function redactingLogger(
  write: (line: string) => void,
  secrets: readonly string[],
): (line: string) => void {
  return (line) => write(redact(line, secrets));
}

/** Re-throws an error with secrets masked in its message and hint. */
export function redactError(error: unknown, secrets: readonly string[]): unknown {
  if (error instanceof RbError) {
    return new RbError(error.code, redact(error.message, secrets), error.hint && redact(error.hint, secrets));
  }
  if (error instanceof Error) {
    // Not a user error: keep the object (and its stack, for the bug report), masked.
    error.message = redact(error.message, secrets);
    if (error.stack) error.stack = redact(error.stack, secrets);
    return error;
  }
  return new Error(redact(String(error), secrets));
}

/**
 * The files documenting the data branch: `README.md` (the text of data/README.md on main, written
 * to read correctly in both places) and `schemas/*.schema.json` (copies of schemas/json on main).
 */
export async function loadDocFiles(workspaceRoot: string): Promise<DocFile[]> {
  const docs: DocFile[] = [];
  try {
    docs.push({
      path: 'README.md',
      content: await readFile(join(workspaceRoot, 'data', 'README.md'), 'utf8'),
    });
    const dir = join(workspaceRoot, 'schemas', 'json');
    for (const name of (await readdir(dir)).filter((n) => n.endsWith('.schema.json')).sort()) {
      docs.push({ path: `${SCHEMAS_DIR}/${name}`, content: await readFile(join(dir, name), 'utf8') });
    }
  } catch (error) {
    throw new RbError(
      'PUBLISH_DOCS',
      `cannot read the data documentation under ${workspaceRoot} (${errorMessage(error)})`,
      'run runtime-bench from a complete checkout of the project',
    );
  }
  return docs;
}
