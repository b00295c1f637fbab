import type { Command } from 'commander';
import { ConfigSchema, criTargets, type Config } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { loadConfig } from '../config/load.ts';
import { stackAnswers, stackDown, stackUp } from '../stack/manager.ts';
import { deprecatedAlias } from './vocabulary.ts';
import { CriNameSchema, readStackState, stackStateDir, type CriName } from '../stack/state.ts';

interface StackOpts {
  stack: string;
  stateDir?: string;
  config?: string;
  cri?: string;
  containerd?: string;
  crio?: string;
  fixHost?: boolean;
  purge?: boolean;
  json?: boolean;
}

const log = (line: string): void => console.error(`stack: ${line}`);

function checkName(name: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(name)) {
    throw new RbError(
      'USAGE_STACK_NAME',
      `--stack "${name}" is not a valid stack name`,
      'use lower-case letters, digits and "-", at most 31 characters',
    );
  }
  return name;
}

/**
 * The CRI runtime of the stack: --cri, else the `cri` of a config target naming this stack, else
 * containerd. A daemon flag of the other runtime is a usage error, not silently ignored.
 */
function chooseCri(opts: StackOpts, config: Config): CriName {
  let cri: CriName = 'containerd';
  if (opts.cri !== undefined) {
    const parsed = CriNameSchema.safeParse(opts.cri);
    if (!parsed.success)
      throw new RbError(
        'USAGE_STACK_CRI',
        `--cri "${opts.cri}" is not a CRI runtime`,
        'use --cri containerd or --cri cri-o',
      );
    cri = parsed.data;
  } else {
    const target = criTargets(config.targets).find((t) => t.stack === opts.stack && !t.endpoint);
    if (target) cri = target.cri;
  }
  if (cri === 'containerd' && opts.crio)
    throw new RbError('USAGE_STACK_CRI', '--crio is for a CRI-O stack', 'add --cri cri-o');
  if (cri === 'cri-o' && opts.containerd)
    throw new RbError('USAGE_STACK_CRI', '--containerd is for a containerd stack', 'drop --cri cri-o');
  return cri;
}

export function registerStack(program: Command): void {
  const stack = program.command('stack');
  const common = (cmd: Command): Command =>
    deprecatedAlias(
      cmd
        .option('--stack <name>', 'stack name', 'default')
        .option('--state-dir <dir>', 'state directory (default /var/lib/runtime-bench/stacks/<stack>)'),
      '--name <name>',
      '--stack',
    );

  common(stack.command('up'))
    .description(
      'start a private containerd or CRI-O with one CRI handler per OCI runtime found, and load the bench images',
    )
    .option('--config <file>', 'runtime-bench config whose `stack` and `images` sections apply')
    .option(
      '--cri <name>',
      'containerd | cri-o (default: the target naming this stack in --config, else containerd)',
    )
    .option('--containerd <binary>', 'containerd binary to run (default: the one on PATH)')
    .option('--crio <binary>', 'crio binary to run, with pinns beside it (default: the one on PATH)')
    .option(
      '--fix-host',
      'apply host fixes that change the host (bind v2-only cgroup controllers to v1 for crun)',
    )
    .option('--json', 'print the stack state as JSON')
    .action(async (opts: StackOpts) => {
      const name = checkName(opts.stack);
      const config = opts.config ? await loadConfig(opts.config) : ConfigSchema.parse({});
      const cri = chooseCri(opts, config);
      const { state, alreadyUp } = await stackUp({
        name,
        stateDir: opts.stateDir,
        cri,
        daemonBinary: cri === 'cri-o' ? opts.crio : opts.containerd,
        fixHost: Boolean(opts.fixHost),
        extraHandlers: config.stack.extraHandlers,
        subnet: config.stack.subnet,
        images: config.images,
        log,
      });
      if (opts.json) {
        console.log(JSON.stringify(state, null, 2));
        return;
      }
      console.log(
        `stack "${state.name}" ${alreadyUp ? 'is already up' : 'is up'}: ${state.cri} ${state.daemon.version}, pid ${state.pid}`,
      );
      console.log(`  endpoint  unix://${state.socket}`);
      if (state.registry)
        console.log(
          `  registry  http://${state.registry.address} (docker-registry ${state.registry.version}, pid ${state.registry.pid})`,
        );
      for (const h of state.handlers)
        console.log(`  handler   ${h.name.padEnd(14)} ${h.kind} ${h.version} (${h.binary})`);
      for (const s of state.skippedHandlers) console.log(`  skipped   ${s.name.padEnd(14)} ${s.reason}`);
      for (const f of state.hostFixes) console.log(`  host fix  ${f.id}: ${f.action}`);
    });

  common(stack.command('down'))
    .description(
      'remove every pod and container of the stack, stop its daemon, unmount leftovers (safe to repeat)',
    )
    .option('--purge', 'also delete the state directory (images, logs, config)')
    .action(async (opts: StackOpts) => {
      const name = checkName(opts.stack);
      const report = await stackDown({ name, stateDir: opts.stateDir, purge: Boolean(opts.purge), log });
      console.log(
        `stack "${name}" is down: ${report.podsRemoved} pod(s) removed, ${report.processesKilled} leftover process(es) stopped`,
      );
      if (report.unmountFailures.length > 0) {
        throw new RbError(
          'STACK_DOWN',
          `could not unmount:\n${report.unmountFailures.join('\n')}`,
          'check `findmnt` for the paths and unmount them by hand',
        );
      }
    });

  common(stack.command('status'))
    .description('show whether the stack runs, its endpoint, handlers and host fixes')
    .option('--json', 'machine-readable output')
    .action(async (opts: StackOpts) => {
      const name = checkName(opts.stack);
      const stateDir = opts.stateDir ?? stackStateDir(name);
      const state = await readStackState(stateDir);
      const up = state ? await stackAnswers(state) : false;
      if (opts.json) {
        console.log(JSON.stringify({ name, up, state }, null, 2));
        return;
      }
      if (!state) {
        console.log(`stack "${name}" has never been brought up (no ${stateDir}/stack.json)`);
        return;
      }
      console.log(
        `stack "${name}" is ${up ? 'up' : 'down'}; ${state.cri} ${state.daemon.version}, endpoint unix://${state.socket}`,
      );
      if (state.registry) console.log(`  registry  http://${state.registry.address}`);
      for (const h of state.handlers) console.log(`  handler   ${h.name.padEnd(14)} ${h.kind} ${h.version}`);
      for (const s of state.skippedHandlers) console.log(`  skipped   ${s.name.padEnd(14)} ${s.reason}`);
      for (const f of state.hostFixes)
        console.log(`  host fix  ${f.id}: ${f.applied ? 'applied' : 'NOT applied'} — ${f.action}`);
    });
}
