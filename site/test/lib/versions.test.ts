import { describe, expect, test } from 'vitest';
import { compareVersions, sortVersions } from '../../src/lib/versions.ts';

describe('compareVersions', () => {
  test.each([
    ['1.1.5', '1.1.12', -1],
    ['1.7.13', '1.7.2', 1],
    ['2.0.0', '1.99.99', 1],
    ['v1.2.0', '1.2.0', 1], // same precedence: falls back to a stable text order
    ['1.2.0-rc.1', '1.2.0', -1],
    ['1.2.0-rc.2', '1.2.0-rc.10', -1],
    ['1.2.0-alpha', '1.2.0-beta', -1],
    ['1.2', '1.2.1', -1],
    ['20231009.0', '20240212.0', -1],
    ['runc version 1.1.5', 'runc version 1.1.4', 1],
  ])('%s vs %s → %i', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
    expect(Math.sign(compareVersions(b, a))).toBe(-sign);
  });

  test('equal strings compare equal', () => {
    expect(compareVersions('1.7.2', '1.7.2')).toBe(0);
  });

  test('text without digits still sorts deterministically', () => {
    expect(sortVersions(['unknown', 'dev', '1.0.0'])).toEqual(['dev', 'unknown', '1.0.0']);
  });

  test('sortVersions removes duplicates and orders numerically', () => {
    expect(sortVersions(['1.10.0', '1.9.2', '1.10.0', '1.9.10'])).toEqual(['1.9.2', '1.9.10', '1.10.0']);
  });
});
