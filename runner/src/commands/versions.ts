import type { Command } from 'commander';
import { SOURCE_DEFAULTS_WHY } from './vocabulary.ts';
import { RbError } from '../errors.ts';
import {
  DEFAULT_PREFIX,
  DEFAULT_SUITES,
  SOURCES,
  availableVersions,
  parseSpec,
  realInstallEnv,
  type Source,
} from '../install/index.ts';
import { newestPerMinor } from '../install/available.ts';

export function registerVersions(program: Command): void {
  program
    .command('versions')
    .argument('<component>', 'e.g. runc')
    .option(
      '--source <source>',
      `go (the Go module proxy), git (tags of --git-dir) or debian-source (upstream versions the Debian source packages carry: crun) (${SOURCE_DEFAULTS_WHY})`,
      'go',
    )
    .option('--git-dir <dir>', 'git source: the checkout whose tags are listed')
    .option('--suites <list>', 'debian-source: the Debian suites searched', DEFAULT_SUITES.join(','))
    .option('--prefix <dir>', 'debian-source: install root holding the private apt state', DEFAULT_PREFIX)
    .option('--debian-mirror <url>', 'debian-source: the Debian archive')
    .option('--newest-per-minor', 'only the newest release of each minor (what a sweep over minors takes)')
    .option('--json', 'print a JSON array')
    .action(
      async (
        component: string,
        opts: {
          source: string;
          gitDir?: string;
          json?: boolean;
          newestPerMinor?: boolean;
          suites: string;
          prefix: string;
          debianMirror?: string;
        },
      ) => {
        if (!SOURCES.includes(opts.source as Source))
          throw new RbError('USAGE_SOURCE', `--source "${opts.source}" is not one of ${SOURCES.join(', ')}`);
        const spec = parseSpec(component);
        const all = await availableVersions(realInstallEnv(), spec.name, opts.source as Source, {
          ...(opts.gitDir ? { gitDir: opts.gitDir } : {}),
          prefix: opts.prefix,
          suites: opts.suites.split(',').filter((s) => s !== ''),
          ...(opts.debianMirror ? { debianMirror: opts.debianMirror } : {}),
        });
        const versions = opts.newestPerMinor ? newestPerMinor(all) : all;
        console.log(opts.json ? JSON.stringify(versions) : versions.join('\n'));
      },
    );
}
