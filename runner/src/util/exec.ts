import { execFile, spawn } from 'node:child_process';
import { CommandError } from '../errors.ts';

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface ExecOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolve with the exit code instead of throwing when the command fails. */
  allowFailure?: boolean;
  timeoutMs?: number;
  input?: string;
}

/** Runs a command to completion; throws CommandError (command, args, exit code, stderr tail) on failure. */
export function exec(
  command: string,
  args: readonly string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        env: options.env ?? process.env,
        cwd: options.cwd,
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 0,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new CommandError(command, args, null, `${command}: command not found`));
          return;
        }
        const exitCode = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && !options.allowFailure) {
          reject(new CommandError(command, args, exitCode, stderr || error.message, error.signal));
          return;
        }
        resolve({ stdout, stderr, exitCode });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Starts a long-running daemon detached from our process group, its output appended to a log fd. */
export function spawnDaemon(
  command: string,
  args: readonly string[],
  logFd: number,
  env: NodeJS.ProcessEnv,
  cwd?: string,
): number {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', logFd, logFd], env, cwd });
  child.unref();
  if (child.pid === undefined) throw new CommandError(command, args, null, 'failed to start');
  return child.pid;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when a process with this PID exists (signal 0 probes without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
