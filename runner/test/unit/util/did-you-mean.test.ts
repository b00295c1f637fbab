import { describe, expect, test } from 'vitest';
import { closestNames, didYouMean, dottedPrefixes, editDistance } from '../../../src/util/did-you-mean.ts';
import { BENCHMARKS, selectBenchmarks } from '../../../src/suites/registry.ts';
import { RbError } from '../../../src/errors.ts';

describe('editDistance', () => {
  test.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['lifecyle', 'lifecycle', 1],
    // an adjacent swap is one edit
    ['preformance', 'performance', 1],
    ['abcd', 'acbd', 1],
  ])('%s → %s: %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closestNames', () => {
  const names = dottedPrefixes(BENCHMARKS.map((b) => b.definition.name));

  test('dottedPrefixes: every leading part a config may name', () => {
    expect(dottedPrefixes(['a.b.c', 'a.d'])).toEqual(['a', 'a.b', 'a.b.c', 'a.d']);
  });

  test('a typo of a benchmark name: that name alone', () => {
    expect(closestNames('operations.container.lifecyle', names)).toEqual(['operations.container.lifecycle']);
    expect(closestNames('perfomance.cpu', names)).toEqual(['performance.cpu']);
    expect(closestNames('startup.latnecy', names)).toEqual(['startup.latency']);
  });

  test('a truncated family: the family, not each of its benchmarks', () => {
    expect(closestNames('perf', names)).toEqual(['performance']);
    expect(closestNames('netw', names)).toEqual(['network']);
  });

  test('nothing near: nothing suggested', () => {
    expect(closestNames('zzzzzz', names)).toEqual([]);
    expect(didYouMean('zzzzzz', names)).toBeNull();
  });

  test('ties are all offered, joined for a sentence', () => {
    expect(didYouMean('cat', ['bat', 'hat', 'dog'])).toBe('did you mean bat or hat?');
    expect(didYouMean('cta', ['cat'])).toBe('did you mean cat?');
  });
});

describe('a config naming a misspelt benchmark', () => {
  const hintOf = (include: string[], skip: string[] = []): string => {
    try {
      selectBenchmarks(include, skip, BENCHMARKS, 'c.yaml');
    } catch (error) {
      return (error as RbError).hint ?? '';
    }
    throw new Error('expected an error');
  };

  test('gets the closest name, not the whole list', () => {
    const hint = hintOf(['operations.container.lifecyle']);
    expect(hint).toMatch(/^did you mean operations\.container\.lifecycle\?/);
    expect(hint).not.toContain('performance.cpu');
  });

  test('in skip too', () => {
    expect(hintOf(['performance'], ['performance.dsk'])).toMatch(/^did you mean performance\.disk\?/);
  });

  test('with nothing near, the list of every benchmark', () => {
    const hint = hintOf(['zzzzzz']);
    for (const b of BENCHMARKS) expect(hint).toContain(b.definition.name);
  });
});
