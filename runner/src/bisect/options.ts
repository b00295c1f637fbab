// The bisect command's flags, checked and turned into values: pure, so every message is tested.
import type { BisectReport } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { bisectCommand } from '../bisect-request.ts';

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
