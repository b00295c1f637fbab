import { describe, expect, it } from 'vitest';
import {
  applyVerdict,
  maxClearSteps,
  nextMove,
  startSearch,
  type SearchState,
} from '../../../src/bisect/search.ts';

/** Runs the search against a culprit index with a verdict function; returns the measured indices. */
function walk(n: number, verdictOf: (i: number, attempt: number) => 'good' | 'bad' | 'unclear') {
  let state: SearchState<number> = startSearch([...Array(n).keys()]);
  const measured: number[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const move = nextMove(state);
    if (move.kind === 'done') return { measured, done: move };
    measured.push(move.index);
    state = applyVerdict(state, move.index, verdictOf(move.index, move.attempt));
  }
  throw new Error('search did not end');
}

describe('bisect search', () => {
  it('finds every culprit position in at most ⌈log₂(n − 1)⌉ clear steps', () => {
    for (const n of [2, 3, 4, 5, 8, 9, 17, 40]) {
      for (let culprit = 1; culprit < n; culprit++) {
        const r = walk(n, (i) => (i >= culprit ? 'bad' : 'good'));
        expect(r.done).toMatchObject({ good: culprit - 1, bad: culprit, skippedBetween: [] });
        expect(r.measured.length).toBeLessThanOrEqual(maxClearSteps(n));
      }
    }
  });
  it('measures the lower middle first, as git bisect', () => {
    expect(nextMove(startSearch([0, 1, 2, 3, 4]))).toMatchObject({ kind: 'measure', index: 2, attempt: 1 });
    expect(nextMove(startSearch([0, 1, 2, 3]))).toMatchObject({ index: 1 });
  });
  it('re-measures an unclear candidate before any other, then skips it and tries its neighbour', () => {
    const r = walk(9, (i) => (i === 4 ? 'unclear' : i >= 6 ? 'bad' : 'good'));
    expect(r.measured.slice(0, 3)).toEqual([4, 4, 3]);
    expect(r.done).toMatchObject({ good: 5, bad: 6 });
  });
  it('a clear second attempt counts', () => {
    const r = walk(5, (i, attempt) => (attempt === 1 ? 'unclear' : i >= 2 ? 'bad' : 'good'));
    expect(r.measured).toEqual([2, 2, 1, 1]);
    expect(r.done).toMatchObject({ good: 1, bad: 2 });
  });
  it('ends with the skipped candidates when only those lie between good and bad', () => {
    const r = walk(5, (i) => (i === 2 || i === 3 ? 'unclear' : i >= 3 ? 'bad' : 'good'));
    expect(r.done).toMatchObject({ kind: 'done', good: 1, bad: 4, skippedBetween: [2, 3] });
  });
  it('refuses fewer than two candidates and verdicts outside the open range', () => {
    expect(() => startSearch([1])).toThrow(/two candidates/);
    expect(() => applyVerdict(startSearch([0, 1, 2]), 2, 'bad')).toThrow(/not inside the open range/);
  });
});
