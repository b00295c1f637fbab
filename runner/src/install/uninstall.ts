// `runtime-bench uninstall`: stop the stacks an install started, then remove exactly the paths it
// created (newest first; parent directories only when empty), then the record itself.
import { readdir, rm, rmdir } from 'node:fs/promises';
import { errorMessage } from '../errors.ts';
import type { InstallEnv } from './env.ts';
import { readInstallRecord } from './record.ts';

export interface UninstallReport {
  stoppedStacks: string[];
  removed: string[];
  kept: string[];
  errors: string[];
}

export async function uninstall(env: InstallEnv, statePath: string): Promise<UninstallReport> {
  const record = await readInstallRecord(statePath);
  const report: UninstallReport = { stoppedStacks: [], removed: [], kept: [], errors: [] };
  const [node, ...cliArgs] = env.cli;
  for (const stack of [...record.stacks].reverse()) {
    const args = [
      ...cliArgs,
      'stack',
      'down',
      '--stack',
      stack.name,
      ...(stack.stateDir ? ['--state-dir', stack.stateDir] : []),
    ];
    const r = await env.run(node!, args, { allowFailure: true, timeoutMs: 300_000 });
    if (r.exitCode === 0) report.stoppedStacks.push(stack.name);
    else
      report.errors.push(
        `stack down --stack ${stack.name} failed (exit ${r.exitCode}): ${r.stderr.trim().split('\n').slice(-2).join(' ')}`,
      );
  }
  // Component directories and private apt state first, then the (now maybe empty) parents.
  for (const path of [...record.created].reverse()) {
    try {
      const entries = await readdir(path).catch((error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' ? null : Promise.reject(error),
      );
      if (entries === null) continue;
      const isComponentDir = record.components.some((c) => c.dir === path) || path.includes('/apt/');
      if (isComponentDir || path === record.stackConfig) {
        await rm(path, { recursive: true, force: true });
        report.removed.push(path);
      } else {
        // A directory we created as a parent: remove only what this record owns (its stack config
        // and record), then the directory if that leaves it empty.
        for (const own of [record.stackConfig, statePath])
          if (own.startsWith(`${path}/`) && !own.slice(path.length + 1).includes('/'))
            await rm(own, { force: true });
        if ((await readdir(path)).length === 0) {
          await rmdir(path);
          report.removed.push(path);
        } else report.kept.push(path);
      }
    } catch (error) {
      report.errors.push(`${path}: ${errorMessage(error)}`);
    }
  }
  // Keep the record while anything is left, so that uninstall can be run again after a fix.
  if (report.errors.length === 0) {
    await rm(record.stackConfig, { force: true });
    await rm(statePath, { force: true });
  }
  return report;
}
