import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', '..', 'bin', 'runtime-bench.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI in a child process, as a user would. */
export function runCli(
  args: string[],
  opts: { onStderr?: (chunk: string, child: ChildProcess) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      opts.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Runs the CLI and sends it `signal` once its stderr matches `when`; `sent` says whether it was
 * (a run that ended first never saw the signal).
 */
export async function runCliSignalled(
  args: string[],
  when: RegExp,
  signal: NodeJS.Signals,
): Promise<CliResult & { sent: boolean }> {
  let sent = false;
  const r = await runCli(args, {
    onStderr: (text, child) => {
      if (!sent && when.test(text)) {
        sent = true;
        child.kill(signal);
      }
    },
  });
  return { ...r, sent };
}
