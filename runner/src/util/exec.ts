import { spawn } from 'node:child_process';
import { CommandError } from '../errors.ts';
import { childEnv, type ChildEnv } from './child-env.ts';

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** True when the command was killed for outliving `timeoutMs`. */
  timedOut?: boolean;
}

export interface ExecOptions {
  /** Default: the allow-listed part of ours (child-env.ts), never our whole environment. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolve with the exit code instead of throwing when the command fails. */
  allowFailure?: boolean;
  /**
   * Kill the command, and every process it started in its process group, after this long: a
   * script that hangs in a child (`sleep`) would otherwise hold our pipes open after its own death.
   */
  timeoutMs?: number;
  input?: string;
  /** Bytes of stdout and of stderr kept (default 64 MiB); the rest is read and dropped. */
  maxOutputBytes?: number;
}

const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

/** Collects a stream up to `limit` bytes, reading (and dropping) the rest so the writer never blocks. */
function collect(stream: NodeJS.ReadableStream | null, limit: number): () => string {
  const chunks: Buffer[] = [];
  let kept = 0;
  stream?.on('data', (chunk: Buffer) => {
    if (kept >= limit) return;
    const part = chunk.subarray(0, limit - kept);
    chunks.push(part);
    kept += part.length;
  });
  return () => Buffer.concat(chunks).toString('utf8');
}

/** Runs a command to completion; throws CommandError (command, args, exit code, stderr tail) on failure. */
export function exec(
  command: string,
  args: readonly string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 0;
    const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const child = spawn(command, args, {
      env: options.env ?? childEnv(process.env),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so that a timeout kills what it started too.
      detached: timeoutMs > 0,
    });
    const stdout = collect(child.stdout, limit);
    const stderr = collect(child.stderr, limit);
    let settled = false;
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            try {
              process.kill(-child.pid!, 'SIGKILL');
            } catch {
              child.kill('SIGKILL');
            }
          }, timeoutMs)
        : undefined;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    child.on('error', (error: NodeJS.ErrnoException) =>
      settle(() => {
        if (error.code === 'ENOENT') {
          reject(new CommandError(command, args, null, `${command}: command not found`));
          return;
        }
        // Could not start it (not executable, a directory): like a failed command.
        if (!options.allowFailure) reject(new CommandError(command, args, -1, error.message));
        else resolve({ stdout: '', stderr: error.message, exitCode: -1 });
      }),
    );
    child.on('close', (code, signal) =>
      settle(() => {
        const exitCode = code ?? -1;
        const err = timedOut
          ? `${stderr()}\ntimed out after ${timeoutMs / 1000} s (killed)`.trim()
          : stderr();
        if (exitCode !== 0 && !options.allowFailure) {
          reject(new CommandError(command, args, exitCode, err, signal));
          return;
        }
        resolve({ stdout: stdout(), stderr: err, exitCode, ...(timedOut ? { timedOut } : {}) });
      }),
    );
    // EPIPE when the command exits without reading its input: its exit status says what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  });
}

/**
 * Starts a long-running daemon detached from our process group, its output appended to a log fd.
 * Its environment is explicit (a `childEnv`): everything it spawns inherits it.
 */
export function spawnDaemon(
  command: string,
  args: readonly string[],
  logFd: number,
  env: ChildEnv,
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
