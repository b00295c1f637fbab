// The bisect command's flags, checked and turned into values: pure, so every message is tested.
import type { BisectReport } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';

/** The components bisect can build and register as a stack handler (a Go build source). */
export const BISECTABLE = ['runc'] as const;

/** `30m`, `2h`, `90s`, `1h30m` → minutes; a plain number is minutes. */
export function parseBudget(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return positive(Number(t), text);
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(t);
  if (!m || t === '')
    throw new RbError(
      'USAGE_BISECT_BUDGET',
      `--budget "${text}" is not a duration`,
      'e.g. --budget 30m, 2h, 1h30m',
    );
  return positive(Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) + Number(m[3] ?? 0) / 60, text);
}

function positive(minutes: number, text: string): number {
  if (!(minutes > 0))
    throw new RbError(
      'USAGE_BISECT_BUDGET',
      `--budget "${text}" must be more than zero`,
      'e.g. --budget 30m',
    );
  return minutes;
}

/** A positive integer flag. */
export function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new RbError(
      'USAGE_BISECT_NUMBER',
      `${flag} "${text}" is not a positive integer`,
      `e.g. ${flag} 20`,
    );
  return n;
}

/** An error rate flag in (0, 0.5]. */
export function alphaFlag(text: string): number {
  const a = Number(text);
  if (!(a > 0 && a <= 0.5))
    throw new RbError(
      'USAGE_BISECT_ALPHA',
      `--alpha "${text}" is not an error rate in (0, 0.5]`,
      'e.g. --alpha 0.02',
    );
  return a;
}

export function directionFlag(text: string): 'slower' | 'faster' {
  if (text === 'slower' || text === 'faster') return text;
  throw new RbError(
    'USAGE_BISECT_DIRECTION',
    `--direction "${text}" is neither slower nor faster`,
    'use --direction slower (a regression) or faster',
  );
}

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

/**
 * The command that goes on with a bisection its budget stopped, from the range it narrowed (a
 * commit range when it got to commits): null when the report narrowed nothing to go on from.
 */
export function continueCommand(
  report: Pick<
    BisectReport,
    | 'component'
    | 'benchmark'
    | 'metric'
    | 'direction'
    | 'lastGoodRelease'
    | 'firstBadRelease'
    | 'lastGoodCommit'
    | 'firstBadCommit'
  >,
  repo: string | undefined,
): string | null {
  const commits = report.lastGoodCommit !== null && report.firstBadCommit !== null && repo !== undefined;
  const good = commits ? report.lastGoodCommit!.ref : report.lastGoodRelease;
  const bad = commits ? report.firstBadCommit!.ref : report.firstBadRelease;
  if (good === null || bad === null) return null;
  return bisectCommand({ ...report, good, bad, ...(repo === undefined ? {} : { repo }) });
}
