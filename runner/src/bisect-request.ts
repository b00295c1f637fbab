// What one bisection is asked to find and the command line that asks for it. Below both bisect/
// (which runs it) and compare/ (whose gate findings offer it), so neither imports the other.

/** The components bisect can build and register as a stack handler (a Go build source). */
export const BISECTABLE = ['runc'] as const;

/** What one bisection is asked to find: a change of `metric` between two versions of a component. */
export interface BisectRequest {
  component: string;
  good: string;
  bad: string;
  benchmark: string;
  metric: string;
  direction: 'slower' | 'faster';
  /** The component's clone, when the command goes on to (or starts from) commits. */
  repo?: string;
}

/** The bisect command's arguments (after `runtime-bench`): what a process is spawned with. */
export function bisectArgs(args: BisectRequest): string[] {
  return [
    'bisect',
    '--component',
    args.component,
    '--good',
    args.good,
    '--bad',
    args.bad,
    '--benchmark',
    args.benchmark,
    '--metric',
    args.metric,
    ...(args.direction === 'slower' ? [] : ['--direction', 'faster']),
    ...(args.repo === undefined ? [] : ['--git-dir', args.repo]),
  ];
}

/**
 * The exact command that bisects a change of `metric` between two versions of a component: what
 * a gate finding offers to run (the same arguments bisectArgs gives a process), quoted for a shell.
 */
export function bisectCommand(args: BisectRequest): string {
  const quote = (s: string) => (/^[A-Za-z0-9._/:@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return ['runtime-bench', ...bisectArgs(args).map(quote)].join(' ');
}
