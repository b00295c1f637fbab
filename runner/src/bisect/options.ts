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

/** The longest budget taken: 30 days (a longer one is a typo, and too long for a timer). */
export const MAX_BUDGET_MINUTES = 30 * 24 * 60;

function positive(minutes: number, text: string): number {
  if (!(minutes > 0))
    throw new RbError(
      'USAGE_BISECT_BUDGET',
      `--budget "${text}" must be more than zero`,
      'e.g. --budget 30m',
    );
  if (!(minutes <= MAX_BUDGET_MINUTES))
    throw new RbError(
      'USAGE_BISECT_BUDGET',
      `--budget "${text}" is more than 30 days`,
      'e.g. --budget 2h; leave --budget out for no limit',
    );
  return minutes;
}

/** A count flag: decimal digits only (not `0x10`, `1e3` or "", which Number() would take). */
function count(flag: string, text: string, min: number, what: string, example: string): number {
  const t = text.trim();
  const n = Number(t);
  if (!/^\d+$/.test(t) || !Number.isSafeInteger(n) || n < min)
    throw new RbError('USAGE_BISECT_NUMBER', `${flag} "${text}" is not ${what}`, `e.g. ${flag} ${example}`);
  return n;
}

/** A positive integer flag. */
export function positiveInt(flag: string, text: string): number {
  return count(flag, text, 1, 'a positive integer', '20');
}

/** A whole-number flag (0 allowed). */
export function nonNegativeInt(flag: string, text: string): number {
  return count(flag, text, 0, 'a whole number', '1');
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

/**
 * `--candidates`: comma-separated commits, refs or pseudo-versions, each one a build is asked
 * for by name; checked before anything is built, so a typo in the fifth does not stop a
 * bisection an hour in. A name is what git and the module proxy take: no spaces, no leading "-".
 */
export function candidatesFlag(text: string): string[] {
  const refs = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (refs.length === 0)
    throw new RbError(
      'USAGE_BISECT_CANDIDATES',
      `--candidates "${text}" names no commit`,
      'e.g. --candidates 3f2a9c1,v1.2.0-rc.1',
    );
  for (const ref of refs)
    if (!/^[0-9A-Za-z][0-9A-Za-z._/+~^-]{0,199}$/.test(ref) || ref.includes('..'))
      throw new RbError(
        'USAGE_BISECT_CANDIDATES',
        `--candidates: "${ref}" is not a commit, ref or pseudo-version`,
        'e.g. --candidates 3f2a9c1,v1.2.0-rc.1 (comma-separated, no spaces inside a name)',
      );
  return refs;
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
