// The one place publishing touches git: a small runner interface over execFile, so the
// orchestration can be driven by the real binary in tests and wrapped (to record argv) when needed.
import { execFile } from 'node:child_process';
import { CommandError } from '../errors.ts';

export interface GitRunOptions {
  /** Working directory; git discovers the repository from here. */
  cwd?: string;
  /** Bytes or text written to git's stdin. */
  input?: string | Buffer;
}

export interface GitRunResult {
  exitCode: number;
  stdout: string;
  /** stdout as raw bytes, for `cat-file --batch` whose sizes are in bytes. */
  stdoutBytes: Buffer;
  stderr: string;
}

/** Runs git; never throws on a non-zero exit (callers decide what a failure means). */
export interface GitRunner {
  run(args: readonly string[], options?: GitRunOptions): Promise<GitRunResult>;
}

/**
 * Variables that would point git at another repository or index than the one we name, or override
 * the explicit identity publishing commits with.
 */
const INHERITED_GIT_STATE = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_PREFIX',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
];

/**
 * The environment git runs in: the caller's, minus the variables above (a git hook calling us
 * would otherwise redirect every command), with English messages (we parse a few) and
 * no interactive credential prompt (a publisher in CI must fail, not hang).
 */
export function gitEnvironment(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of INHERITED_GIT_STATE) delete env[name];
  return { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', ...extra };
}

/** A GitRunner over the real `git` binary with a fixed environment. */
export function createGitRunner(env: NodeJS.ProcessEnv, binary = 'git'): GitRunner {
  return {
    run(args, options = {}) {
      return new Promise((resolve, reject) => {
        const child = execFile(
          binary,
          args,
          { env, cwd: options.cwd, maxBuffer: 512 * 1024 * 1024, encoding: 'buffer' },
          (error, stdout, stderr) => {
            if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
              reject(new CommandError(binary, args, null, `${binary}: command not found`));
              return;
            }
            const exitCode = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
            resolve({
              exitCode,
              stdout: stdout.toString('utf8'),
              stdoutBytes: stdout,
              stderr: stderr.toString('utf8'),
            });
          },
        );
        // An EPIPE from a git that exits before reading its input is reported through its exit code.
        child.stdin?.on('error', () => {});
        if (options.input !== undefined) child.stdin?.end(options.input);
        else child.stdin?.end();
      });
    },
  };
}

/** Runs git and throws a CommandError (args, exit code, stderr tail) unless it exits 0. */
export async function gitOk(
  git: GitRunner,
  args: readonly string[],
  options?: GitRunOptions,
): Promise<string> {
  const result = await git.run(args, options);
  if (result.exitCode !== 0) throw new CommandError('git', args, result.exitCode, result.stderr);
  return result.stdout;
}
