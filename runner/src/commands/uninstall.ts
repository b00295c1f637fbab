import type { Command } from 'commander';
import { RbError } from '../errors.ts';
import { DEFAULT_PREFIX, realInstallEnv, uninstall } from '../install/index.ts';
import { defaultStatePath } from './install.ts';

export function registerUninstall(program: Command): void {
  program
    .command('uninstall')
    .option('--state <file>', 'the install record (default <prefix>/state/install.json)')
    .option('--prefix <dir>', 'install root, to find the default record', DEFAULT_PREFIX)
    .option('--json', 'print what was done as JSON')
    .action(async (opts: { state?: string; prefix: string; json?: boolean }) => {
      const report = await uninstall(realInstallEnv(), opts.state ?? defaultStatePath(opts.prefix));
      if (opts.json) console.log(JSON.stringify(report, null, 2));
      else {
        for (const s of report.stoppedStacks) console.log(`stopped stack ${s}`);
        for (const p of report.removed) console.log(`removed ${p}`);
        for (const p of report.kept) console.log(`kept    ${p} (not empty: holds others' files)`);
      }
      if (report.errors.length > 0)
        throw new RbError(
          'UNINSTALL_INCOMPLETE',
          `uninstall left things behind:\n${report.errors.join('\n')}`,
          'fix the cause and run uninstall again',
        );
    });
}
