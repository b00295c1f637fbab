import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { SOURCE_DEFAULTS_WHY } from './vocabulary.ts';
import { z } from 'zod';
import { RbError, parseWithFriendlyErrors } from '../errors.ts';
import { jsonSyntaxProblem } from '../results/io.ts';
import {
  DEFAULT_PREFIX,
  DEFAULT_SUITES,
  SOURCES,
  DEFAULT_GITHUB_API,
  checkInstallPlan,
  formatPlan,
  install,
  listInstalled,
  parseSpecList,
  realInstallEnv,
  type Source,
} from '../install/index.ts';
import { readTextFile } from '../util/read-file.ts';

interface InstallCliOptions {
  source: string;
  prefix: string;
  suites: string;
  state?: string;
  pathDir?: string;
  gitDir?: string;
  toolchain?: string;
  mirror?: string;
  githubApi?: string;
  debianMirror?: string;
  checksums?: string;
  dryRun?: boolean;
  list?: boolean;
  json?: boolean;
}

/** The default record path: inside the prefix, so a later uninstall finds it without being told. */
export function defaultStatePath(prefix: string): string {
  return join(prefix, 'state', 'install.json');
}

async function readChecksums(path: string): Promise<Record<string, string>> {
  const hint = 'the file is a JSON object of "component@version/file": "sha256:<hex>"';
  const text = await readTextFile(path, {
    code: 'USAGE_CHECKSUMS',
    message: (reason) => `--checksums ${path}: cannot read (${reason})`,
    hint,
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'USAGE_CHECKSUMS',
      `--checksums ${path}: not valid JSON (${jsonSyntaxProblem(error, text)})`,
      hint,
    );
  }
  return parseWithFriendlyErrors(z.record(z.string(), z.string()), json, `--checksums ${path}`, {
    code: 'USAGE_CHECKSUMS',
    hint,
  });
}

export function registerInstall(program: Command): void {
  program
    .command('install')
    .argument(
      '[components...]',
      'name@version, e.g. containerd@1.7.24 runc@1.3.6 crun@latest (path source: runc or runc@/usr/sbin/runc)',
    )
    .option(
      '--source <source>',
      `where to take them from: ${SOURCES.join(' | ')} (${SOURCE_DEFAULTS_WHY})`,
      'release',
    )
    .option('--prefix <dir>', 'install root: <prefix>/<component>/<version>', DEFAULT_PREFIX)
    .option(
      '--suites <list>',
      'Debian suites searched by the distro and debian-source sources',
      DEFAULT_SUITES.join(','),
    )
    .option('--state <file>', 'where to write the install record (default <prefix>/state/install.json)')
    .option(
      '--path-dir <dirs>',
      'path source: directories searched before PATH, separated by ":" (e.g. ../shared/tools/cri-o:../shared/tools/cri-tools)',
    )
    .option('--git-dir <dir>', 'git source: the checkout whose ref is built (runc@<branch|tag|commit>)')
    .option(
      '--toolchain <go>',
      "go and git sources: this Go toolchain (go1.23.4, local) instead of the release's",
    )
    .option('--mirror <url>', 'fetch release assets https://host/path from <url>/host/path')
    .option(
      '--github-api <url>',
      `GitHub's REST API, read for latest versions and release asset digests (default $RB_GITHUB_API, else ${DEFAULT_GITHUB_API}; GITHUB_TOKEN, when set, is sent to it alone)`,
    )
    .option('--debian-mirror <url>', 'Debian archive for the distro and debian-source sources')
    .option('--checksums <file>', 'extra pinned digests, JSON {"runc@1.3.6/runc.amd64": "sha256:<hex>"}')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--list', 'list what is installed under the prefix')
    .option('--json', 'print the install record (or plan, or list) as JSON')
    .action(async (specs: string[], opts: InstallCliOptions) => {
      if (opts.list) {
        const isDir = await stat(opts.prefix).then(
          (info) => info.isDirectory(),
          () => false,
        );
        if (!isDir)
          throw new RbError(
            'USAGE_PREFIX',
            `--prefix ${opts.prefix} does not exist (or is not a directory), so nothing is installed there`,
            `pass the --prefix that \`install\` was given (default ${DEFAULT_PREFIX})`,
          );
        const installed = await listInstalled(opts.prefix);
        if (!opts.json && Object.keys(installed).length === 0)
          console.error(`nothing is installed under ${opts.prefix}`);
        if (opts.json) console.log(JSON.stringify(installed, null, 2));
        else
          for (const [name, versions] of Object.entries(installed))
            console.log(`${name.padEnd(12)} ${versions.join('  ')}`);
        return;
      }
      if (!SOURCES.includes(opts.source as Source)) {
        throw new RbError('USAGE_SOURCE', `--source "${opts.source}" is not one of ${SOURCES.join(', ')}`);
      }
      const request = {
        specs: parseSpecList(specs.join(' ')),
        source: opts.source as Source,
        prefix: opts.prefix,
        suites: opts.suites
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        ...(opts.pathDir
          ? {
              pathDirs: opts.pathDir
                .split(':')
                .filter(Boolean)
                .map((d) => resolve(d)),
            }
          : {}),
        ...(opts.gitDir ? { gitDir: resolve(opts.gitDir) } : {}),
        ...(opts.toolchain ? { toolchain: opts.toolchain } : {}),
      };
      const githubApi = opts.githubApi ?? process.env.RB_GITHUB_API;
      const releaseOptions = {
        ...(opts.mirror ? { mirror: opts.mirror } : {}),
        ...(githubApi ? { githubApi } : {}),
        ...(process.env.GITHUB_TOKEN ? { githubToken: process.env.GITHUB_TOKEN } : {}),
        ...(opts.checksums ? { checksums: await readChecksums(opts.checksums) } : {}),
      };
      if (opts.dryRun) {
        const checked = await checkInstallPlan(realInstallEnv(), request, releaseOptions);
        console.log(
          opts.json
            ? JSON.stringify({ ...checked.plan, verification: checked.verification }, null, 2)
            : formatPlan(checked.plan, checked.verification),
        );
        return;
      }
      const statePath = opts.state ?? defaultStatePath(opts.prefix);
      const record = await install(realInstallEnv(), request, {
        statePath,
        ...releaseOptions,
        ...(opts.debianMirror ? { debianMirror: opts.debianMirror } : {}),
      });
      if (opts.json) {
        console.log(JSON.stringify(record, null, 2));
        return;
      }
      for (const c of record.components)
        console.log(
          `${`${c.name}@${c.version}`.padEnd(24)} ${c.dir ?? Object.values(c.binaries)[0]}  (${c.detail})`,
        );
      for (const h of record.handlers) console.log(`handler ${h.name.padEnd(18)} ${h.binary}`);
      for (const c of record.containerd)
        console.log(`stack up --containerd ${c.binary} --config ${record.stackConfig}`);
      for (const c of record.crio)
        console.log(`stack up --cri cri-o --crio ${c.binary} --config ${record.stackConfig}`);
      console.log(`record: ${statePath}  (undo with: runtime-bench uninstall --state ${statePath})`);
    });
}
