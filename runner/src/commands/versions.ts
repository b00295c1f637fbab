import type { Command } from 'commander';
import { SOURCE_DEFAULTS_WHY } from './vocabulary.ts';
import { RbError } from '../errors.ts';
import { SOURCES, availableVersions, parseSpec, realInstallEnv, type Source } from '../install/index.ts';
import { newestPerMinor } from '../install/available.ts';

export function registerVersions(program: Command): void {
  program
    .command('versions')
    .argument('<component>', 'e.g. runc')
    .option(
      '--source <source>',
      `go (the Go module proxy) or git (tags of --git-dir) (${SOURCE_DEFAULTS_WHY})`,
      'go',
    )
    .option('--git-dir <dir>', 'git source: the checkout whose tags are listed')
    .option('--newest-per-minor', 'only the newest release of each minor (what a sweep over minors takes)')
    .option('--json', 'print a JSON array')
    .action(
      async (
        component: string,
        opts: { source: string; gitDir?: string; json?: boolean; newestPerMinor?: boolean },
      ) => {
        if (!SOURCES.includes(opts.source as Source))
          throw new RbError('USAGE_SOURCE', `--source "${opts.source}" is not one of ${SOURCES.join(', ')}`);
        const spec = parseSpec(component);
        const all = await availableVersions(
          realInstallEnv(),
          spec.name,
          opts.source as Source,
          opts.gitDir ? { gitDir: opts.gitDir } : {},
        );
        const versions = opts.newestPerMinor ? newestPerMinor(all) : all;
        console.log(opts.json ? JSON.stringify(versions) : versions.join('\n'));
      },
    );
}
