// Loads the reference values of runner/test/fixtures/stats (computed by generate.py with scipy).
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

export function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/stats/${name}`, import.meta.url), 'utf8')) as T;
}

/** |actual - expected| ≤ rel·|expected| + abs: a relative tolerance that still works at 0. */
export function expectClose(actual: number | null, expected: number | null, rel = 1e-9, abs = 1e-12): void {
  if (expected === null) {
    expect(actual).toBeNull();
    return;
  }
  expect(actual).not.toBeNull();
  const tol = rel * Math.abs(expected) + abs;
  if (!(Math.abs(actual! - expected) <= tol))
    expect.fail(`expected ${actual} to be within ${tol} of ${expected} (difference ${actual! - expected})`);
}
