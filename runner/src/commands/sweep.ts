import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigSchema } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { loadConfig } from '../config/load.ts';
import {
  DEFAULT_PREFIX,
  DEFAULT_SUITES,
  SOURCES,
  addStackToRecord,
  availableVersions,
  compareSemver,
  install,
  realInstallEnv,
  selectRange,
  type Source,
} from '../install/index.ts';
import { stackDown, stackUp } from '../stack/manager.ts';
import { parseSweepSpecs, sweepConfig } from '../sweep/plan.ts';
import { runAndWrite } from './run.ts';

interface SweepOpts {
  config?: string;
  source: string;
  prefix: string;
  gitDir?: string;
  toolchain?: string;
  name: string;
  containerd?: string;
  out?: string;
  dataDir?: string;
  keepStack?: boolean;
  json?: boolean;
  dryRun?: boolean;
}

const log = (line: string): void => console.error(`sweep: ${line}`);

export function registerSweep(program: Command): void {
  program
    .command('sweep')
    .argument(
      '<versions...>',
      'runc@1.1.5..1.4.3 (what the source lists in between), or runc@1.1.5 runc@1.2.0 …',
    )
    .option('--config <file>', "benchmarks, repetitions and parameters (targets are the sweep's handlers)")
    .option('--source <source>', `where the versions come from: ${SOURCES.join(' | ')}`, 'go')
    .option('--prefix <dir>', 'install root (and build cache)', DEFAULT_PREFIX)
    .option('--git-dir <dir>', 'git source: the checkout whose refs are built')
    .option('--toolchain <go>', "build sources: this Go toolchain instead of each release's")
    .option('--name <stack>', 'the local stack the sweep brings up', 'sweep')
    .option('--containerd <binary>', 'containerd binary of the stack (default: the one on PATH)')
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
      const env = realInstallEnv(log);
      const versions = spec.range
        ? selectRange(
            await availableVersions(env, spec.component, source, opts.gitDir ? { gitDir: opts.gitDir } : {}),
            spec.range.from,
            spec.range.to,
          )
        : spec.versions;
      log(`${spec.component}: ${versions.join(' ')}`);
      if (opts.dryRun) {
        console.log(versions.join('\n'));
        return;
      }
      const base = opts.config ? await loadConfig(opts.config) : ConfigSchema.parse({});
      const statePath = join(opts.prefix, 'state', `sweep-${opts.name}.json`);
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
      const handlers = [...record.handlers].sort((a, b) =>
        compareSemverSafe(a.name.slice(spec.component.length + 1), b.name.slice(spec.component.length + 1)),
      );
      const config = sweepConfig(base, opts.name, { handlers });
      // Noted before it starts, so `uninstall --state` stops even a half-started stack.
      await addStackToRecord(statePath, { name: opts.name });
      const { state, alreadyUp } = await stackUp({
        name: opts.name,
        cri: 'containerd',
        daemonBinary: opts.containerd,
        fixHost: false,
        extraHandlers: config.stack.extraHandlers,
        subnet: config.stack.subnet,
        images: config.images,
        log,
      });
      try {
        const missing = handlers.filter((h) => !state.handlers.some((s) => s.name === h.name));
        if (missing.length > 0)
          throw new RbError(
            'SWEEP_STACK',
            `stack "${opts.name}" was already up without handler(s) ${missing.map((h) => h.name).join(', ')}`,
            `runtime-bench stack down --name ${opts.name}, then sweep again`,
          );
        await runAndWrite(config, opts, opts.config ?? '(sweep defaults)');
      } finally {
        if (!alreadyUp && !opts.keepStack) await stackDown({ name: opts.name, purge: false, log });
      }
    });
}

/** Versions in handler names order as semver where they are, as text otherwise (git builds). */
function compareSemverSafe(a: string, b: string): number {
  try {
    return compareSemver(a, b);
  } catch {
    return a.localeCompare(b);
  }
}
