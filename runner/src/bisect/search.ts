// The bisection search over one ordered list of candidates, as pure state transitions: which
// candidate to measure next, and what a verdict tells about the range. Building and measuring are
// elsewhere (bisect.ts); this module only narrows [last known good, first known bad].

/** What a step concluded about a candidate. */
export type StepVerdict = 'good' | 'bad' | 'unclear';

/** A range of candidates in history order: index 0 is known good, the last known bad. */
export interface SearchState<T> {
  readonly candidates: readonly T[];
  /** Index of the newest candidate known good. */
  readonly lo: number;
  /** Index of the oldest candidate known bad. */
  readonly hi: number;
  /** Unclear verdicts so far, per candidate index. */
  readonly unclear: ReadonlyMap<number, number>;
  /** Candidates given up on after too many unclear verdicts (as `git bisect skip`). */
  readonly skipped: ReadonlySet<number>;
}

export type NextMove<T> =
  | { kind: 'measure'; index: number; candidate: T; attempt: number }
  /** lo and hi are adjacent (or only skipped candidates lie between them): the search is over. */
  | { kind: 'done'; good: T; bad: T; skippedBetween: T[] };

/** A search over `candidates` (at least the good and the bad end). */
export function startSearch<T>(candidates: readonly T[]): SearchState<T> {
  if (candidates.length < 2)
    throw new RangeError('bisect search: needs the good and the bad end (two candidates at least)');
  return { candidates, lo: 0, hi: candidates.length - 1, unclear: new Map(), skipped: new Set() };
}

/**
 * The next candidate to measure: the middle of the open range (lower middle, as git bisect), or
 * when that one was skipped the nearest unskipped one to it (alternating below and above). An
 * unclear candidate is measured again before any other (its attempt number says which time).
 */
export function nextMove<T>(state: SearchState<T>): NextMove<T> {
  const { lo, hi } = state;
  const open: number[] = [];
  for (let i = lo + 1; i < hi; i++) if (!state.skipped.has(i)) open.push(i);
  if (open.length === 0) {
    const skippedBetween: T[] = [];
    for (let i = lo + 1; i < hi; i++) skippedBetween.push(state.candidates[i]!);
    return { kind: 'done', good: state.candidates[lo]!, bad: state.candidates[hi]!, skippedBetween };
  }
  const pending = open.find((i) => (state.unclear.get(i) ?? 0) > 0);
  const mid = Math.floor((lo + hi) / 2);
  const index = pending ?? open.reduce((best, i) => (Math.abs(i - mid) < Math.abs(best - mid) ? i : best));
  return {
    kind: 'measure',
    index,
    candidate: state.candidates[index]!,
    attempt: (state.unclear.get(index) ?? 0) + 1,
  };
}

/**
 * The range after a verdict on candidate `index`: good moves the low end up, bad the high end
 * down; unclear counts, and after `maxAttempts` unclear verdicts the candidate is skipped.
 */
export function applyVerdict<T>(
  state: SearchState<T>,
  index: number,
  verdict: StepVerdict,
  maxAttempts = 2,
): SearchState<T> {
  if (!(index > state.lo && index < state.hi))
    throw new RangeError(
      `bisect search: candidate ${index} is not inside the open range ${state.lo}..${state.hi}`,
    );
  if (verdict === 'good') return { ...state, lo: index, unclear: without(state.unclear, index) };
  if (verdict === 'bad') return { ...state, hi: index, unclear: without(state.unclear, index) };
  const count = (state.unclear.get(index) ?? 0) + 1;
  if (count >= maxAttempts)
    return { ...state, unclear: without(state.unclear, index), skipped: new Set([...state.skipped, index]) };
  return { ...state, unclear: new Map([...state.unclear, [index, count]]) };
}

function without(m: ReadonlyMap<number, number>, key: number): Map<number, number> {
  const copy = new Map(m);
  copy.delete(key);
  return copy;
}

/** Steps a search over n candidates takes at most when every verdict is clear: ⌈log₂(n − 1)⌉. */
export function maxClearSteps(n: number): number {
  return n <= 2 ? 0 : Math.ceil(Math.log2(n - 1));
}
