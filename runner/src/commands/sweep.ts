import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigSchema, type Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { loadConfig } from '../config/load.ts';
import {
  DEFAULT_PREFIX,
  DEFAULT_SUITES,
  SOURCES,
  availableVersions,
  compareSemver,
  install,
  proxyLocalReplacements,
  realInstallEnv,
  recipeRefusal,
  selectRange,
  type ComponentName,
  type InstallEnv,
  type Source,
} from '../install/index.ts';
import { criSweepConfig, parseSweepSpecs, sweepConfig, sweepStacks } from '../sweep/plan.ts';
import { addStackToRecord, type InstallRecord } from '../install/record.ts';
import { withRunSession, type SessionStack } from '../session/session.ts';
import { cliSession, runAndReport } from './run.ts';
import { throwIfBenchmarksFailed } from '../results/failures.ts';
import { SOURCE_DEFAULTS_WHY, deprecatedAlias } from './vocabulary.ts';

interface SweepOpts {
  config?: string;
  source: string;
  prefix: string;
  gitDir?: string;
  toolchain?: string;
  stack: string;
  containerd?: string;
  handler: string;
  state?: string;
  out?: string;
  dataDir?: string;
  keepStack?: boolean;
  json?: boolean;
  dryRun?: boolean;
}

const log = (line: string): void => console.error(`sweep: ${line}`);

export function registerSweep(program: Command): void {
  const command = program
    .command('sweep')
    .argument(
      '<versions...>',
      'runc@1.1.5..1.4.3 (what the source lists in between), or runc@1.1.5 runc@1.2.0 …, or containerd@1.7.35 containerd@2.0.14 …',
    )
    .option('--config <file>', "benchmarks, repetitions and parameters (targets are the sweep's handlers)")
    .option(
      '--source <source>',
      `where the versions come from: ${SOURCES.join(' | ')} (${SOURCE_DEFAULTS_WHY})`,
      'go',
    )
    .option('--prefix <dir>', 'install root (and build cache)', DEFAULT_PREFIX)
    .option('--git-dir <dir>', 'git source: the checkout whose refs are built')
    .option('--toolchain <go>', "build sources: this Go toolchain instead of each release's")
    .option(
      '--stack <name>',
      'the local stack the sweep brings up (containerd sweeps: the prefix of one per version)',
      'sweep',
    )
    .option(
      '--containerd <binary>',
      'OCI runtime sweeps: containerd binary of the stack (default: the one on PATH)',
    )
    .option('--handler <name>', "containerd sweeps: the handler every version's stack measures", 'runc')
    .option(
      '--state <file>',
      'install record (default <prefix>/state/sweep-<stack>.json): `uninstall --state` removes what the sweep installed',
    )
    .option('--out <file>', 'result file to write')
    .option('--data-dir <dir>', 'write the result into <dir>/runs/<yyyy>/<mm>/<dd>/<run-id>.json instead')
    .option('--keep-stack', 'leave the stack up afterwards')
    .option('--dry-run', 'print the versions and stop')
    .option('--json', 'print the result JSON on stdout')
    .action(async (args: string[], opts: SweepOpts) => {
      if (!SOURCES.includes(opts.source as Source))
        throw new RbError('USAGE_SOURCE', `--source "${opts.source}" is not one of ${SOURCES.join(', ')}`);
      if (!opts.dryRun && !opts.out === !opts.dataDir)
        throw new RbError('USAGE_RUN_OUTPUT', 'sweep needs exactly one of --out FILE or --data-dir DIR');
      const source = opts.source as Source;
      const spec = parseSweepSpecs(args);
      // The config first: a dry run that cannot find it must fail as the sweep would.
      const base = opts.config ? await loadConfig(opts.config) : ConfigSchema.parse({});
      const env = realInstallEnv(log);
      const listed = spec.range
        ? selectRange(
            await availableVersions(env, spec.component, source, {
              ...(opts.gitDir ? { gitDir: opts.gitDir } : {}),
              prefix: opts.prefix,
              suites: DEFAULT_SUITES,
            }),
            spec.range.from,
            spec.range.to,
          )
        : spec.versions;
      const versions = buildableVersions(spec.component, listed, source);
      log(`${spec.component}: ${versions.join(' ')}`);
      if (opts.dryRun) {
        console.log((await proxyBuildable(env, spec.component, versions, source)).join('\n'));
        return;
      }
      const statePath = opts.state ?? join(opts.prefix, 'state', `sweep-${opts.stack}.json`);
      const record = await install(
        env,
        {
          specs: versions.map((version) => ({ name: spec.component, version, path: null })),
          source,
          prefix: opts.prefix,
          suites: DEFAULT_SUITES,
          ...(opts.gitDir ? { gitDir: opts.gitDir } : {}),
          ...(opts.toolchain ? { toolchain: opts.toolchain } : {}),
        },
        { statePath },
      );
      const { config, stacks } =
        spec.kind === 'cri' ? criPlan(base, record, opts) : ociPlan(base, record, spec.component, opts);
      const tty = !opts.json && Boolean(process.stderr.isTTY);
      const results = await withRunSession(
        cliSession(tty, {
          log,
          keepStacks: Boolean(opts.keepStack),
          recordStack: (name) => addStackToRecord(statePath, { name }),
        }),
        async (session) => {
          await session.stacks(stacks);
          return runAndReport(session, config, opts, opts.config ?? '(sweep defaults)');
        },
      );
      throwIfBenchmarksFailed(results);
    });
  deprecatedAlias(command, '--name <name>', '--stack');
}

/**
 * The versions the recipe can build from a build source, the others left out with the reason
 * (runc 1.5+ needs libpathrs); fewer than two left is an error, as a sweep compares.
 */
function buildableVersions(component: ComponentName, versions: readonly string[], source: Source): string[] {
  const kept: string[] = [];
  for (const version of versions) {
    const refusal = recipeRefusal(component, version, source);
    if (refusal === null) kept.push(version);
    else log(`${component} ${version}: left out, it cannot be built from source "${source}": ${refusal}`);
  }
  if (kept.length < 2)
    throw new RbError(
      'USAGE_SWEEP',
      `${kept.length} of the ${versions.length} version(s) can be built from source "${source}": a sweep compares at least two`,
      'choose versions the recipe builds (the lines above say why the others cannot), or --source release',
    );
  return kept;
}

/**
 * A dry run's list: the versions whose go.mod, read from the module proxy, replaces no module
 * with a nested directory (the proxy's copy leaves it out, so the build would likely be refused);
 * those are named on stderr instead, with the fix. Versions the proxy cannot be asked about stay.
 */
async function proxyBuildable(
  env: InstallEnv,
  component: ComponentName,
  versions: readonly string[],
  source: Source,
): Promise<string[]> {
  if (source !== 'go') return [...versions];
  const kept: string[] = [];
  for (const version of versions) {
    const dirs = await proxyLocalReplacements(env, component, version);
    if (dirs === null || dirs.length === 0) kept.push(version);
    else
      log(
        `${component} ${version}: likely not buildable from the module proxy: its go.mod replaces a module with ${dirs.join(', ')}, which the proxy's copy leaves out; build it with --source git --git-dir <checkout>`,
      );
  }
  return kept;
}

/** One stack, one handler per version of the OCI runtime (oldest first). */
function ociPlan(
  base: Config,
  record: InstallRecord,
  component: string,
  opts: SweepOpts,
): { config: Config; stacks: SessionStack[] } {
  const handlers = [...record.handlers].sort((a, b) =>
    compareSemverSafe(a.name.slice(component.length + 1), b.name.slice(component.length + 1)),
  );
  const config = sweepConfig(base, opts.stack, { handlers });
  return {
    config,
    stacks: [
      {
        name: opts.stack,
        cri: 'containerd',
        daemonBinary: opts.containerd,
        fixHost: false,
        extraHandlers: config.stack.extraHandlers,
        subnet: config.stack.subnet,
        images: config.images,
        handlers: handlers.map((h) => h.name),
      },
    ],
  };
}

/** One stack per containerd version (oldest first), each with the same handler. */
function criPlan(
  base: Config,
  record: InstallRecord,
  opts: SweepOpts,
): { config: Config; stacks: SessionStack[] } {
  if (opts.containerd)
    throw new RbError(
      'USAGE_SWEEP',
      '--containerd names the daemon of an OCI runtime sweep',
      'a containerd sweep builds its own: drop --containerd',
    );
  const daemons = [...record.containerd].sort((a, b) => compareSemverSafe(a.version, b.version));
  const stacks = sweepStacks(opts.stack, daemons);
  const config = criSweepConfig(base, stacks, opts.handler);
  return {
    config,
    stacks: stacks.map((s) => ({
      name: s.name,
      cri: 'containerd',
      daemonBinary: s.binary,
      fixHost: false,
      extraHandlers: base.stack.extraHandlers,
      subnet: config.stack.subnet,
      images: config.images,
      handlers: [opts.handler],
    })),
  };
}

/** Versions in handler names order as semver where they are, as text otherwise (git builds). */
function compareSemverSafe(a: string, b: string): number {
  try {
    return compareSemver(a, b);
  } catch {
    return a.localeCompare(b);
  }
}
