import type { Command } from 'commander';

/** Each command lives in its own module and adds itself to the program. */
export type RegisterCommand = (program: Command) => void;

/**
 * The commands, each with the line `--help` prints for it and the module that implements it. A
 * module is loaded only when its command runs (or its own help is asked for): `--help`, `list` and
 * `validate` must not pay for the Kubernetes client, the CRI stack or the statistics. The
 * description lives here alone; cli.ts gives it to the command its module registers.
 */
export interface CommandEntry {
  name: string;
  description: string;
  load: () => Promise<RegisterCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'check',
    description:
      'regression gate: compare a run with the last K comparable runs of a history directory; flag changes that are significant (Holm) AND beyond a threshold, in the bad direction',
    load: async () => (await import('./check.ts')).registerCheck,
  },
  {
    name: 'compare',
    description:
      'compare two result files, or two targets of one file, per benchmark × target × metric: medians, ratio with bootstrap CI, Mann-Whitney p (Holm), verdict',
    load: async () => (await import('./compare.ts')).registerCompare,
  },
  {
    name: 'data',
    description: 'inspect the published benchmark data',
    load: async () => (await import('./data.ts')).registerData,
  },
  {
    name: 'doctor',
    description:
      'is this host ready and quiet enough to measure on: cgroups, kernel, the binaries and their versions, free disk, other runtimes, CPU frequency scaling, load; each finding with the fix',
    load: async () => (await import('./doctor.ts')).registerDoctor,
  },
  {
    name: 'install',
    description: 'install container runtimes at chosen versions side by side under one prefix',
    load: async () => (await import('./install.ts')).registerInstall,
  },
  {
    name: 'publish',
    description:
      'publish result files to the data branch: validated, add-only, safe against concurrent publishers',
    load: async () => (await import('./publish.ts')).registerPublish,
  },
  {
    name: 'stack',
    description: 'manage a private local CRI stack, containerd or CRI-O (the embedded default target)',
    load: async () => (await import('./stack.ts')).registerStack,
  },
  {
    name: 'recover',
    description:
      'turn the journal of a run whose process was killed (SIGKILL, OOM, a lost runner) into an incomplete result file',
    load: async () => (await import('./recover.ts')).registerRecover,
  },
  {
    name: 'run',
    description: 'run the configured benchmarks and write one result JSON',
    load: async () => (await import('./run.ts')).registerRun,
  },
  {
    name: 'list',
    description:
      'list the benchmarks runtime-bench knows (CRI, engine and Kubernetes targets), with their metrics and default parameters',
    load: async () => (await import('./list.ts')).registerList,
  },
  {
    name: 'version',
    description:
      'print the tool version and, for an endpoint or local stack, the runtime and handlers it talks to',
    load: async () => (await import('./version.ts')).registerVersion,
  },
  {
    name: 'uninstall',
    description: 'stop the stacks an install started and remove exactly what it installed',
    load: async () => (await import('./uninstall.ts')).registerUninstall,
  },
  {
    name: 'validate',
    description: 'check result files against the result schema',
    load: async () => (await import('./validate.ts')).registerValidate,
  },
  {
    name: 'plan',
    description:
      'sample sizes: from a history (or one run), the samples per night each metric needs for check to flag a given step on its first night',
    load: async () => (await import('./plan.ts')).registerPlan,
  },
  {
    name: 'cluster',
    description:
      'a local single-node Kubernetes (etcd, apiserver, scheduler, controller-manager, kubelet) on a stack',
    load: async () => (await import('./cluster.ts')).registerCluster,
  },
  {
    name: 'sweep',
    description:
      'install or build many versions of one OCI runtime and measure them in one interleaved run on one stack',
    load: async () => (await import('./sweep.ts')).registerSweep,
  },
  {
    name: 'versions',
    description: 'list the versions of a component a source can provide, newest first',
    load: async () => (await import('./versions.ts')).registerVersions,
  },
  {
    name: 'bisect',
    description:
      'find the release and the commit of a component that changed a metric (builds and measures candidates)',
    load: async () => (await import('./bisect.ts')).registerBisect,
  },
];

/**
 * The command an argument vector (without node and script) invokes, or null: the first argument
 * that is not an option, and for `help X` the X. Only the top level has options (`--help`,
 * `-V`), and none takes a value, so the first non-option is the command.
 */
export function invokedCommand(args: readonly string[]): string | null {
  const first = args.findIndex((a) => !a.startsWith('-'));
  if (first === -1) return null;
  if (args[first] === 'help') return args.slice(first + 1).find((a) => !a.startsWith('-')) ?? null;
  return args[first]!;
}

/**
 * Adds every command to the program: the invoked one from its module (with its options, action
 * and subcommands), the others as their name and description only — enough for `--help` and for
 * commander's "unknown command, did you mean" — without loading them.
 */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const invoked = invokedCommand(args);
  for (const entry of COMMANDS) {
    if (entry.name === invoked) {
      (await entry.load())(program);
      const command = program.commands.find((c) => c.name() === entry.name);
      if (!command) throw new Error(`command module ${entry.name} registered no command "${entry.name}"`);
      command.description(entry.description);
    } else program.command(entry.name).description(entry.description);
  }
}
