import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { refuseModifiedCheckouts } from '../../../src/publish/provenance.ts';
import { resultNumber } from './helpers.ts';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const input = (source: string, gitCommit: string | null) => {
  const result = resultNumber(1);
  return { source, result: { ...result, tool: { ...result.tool, gitCommit } } };
};

describe('publishing a result measured from a modified checkout', () => {
  test('refused, every such file named with its commit, and the fix in the hint', () => {
    const inputs = [input('a.json', `${SHA}+dirty`), input('b.json', SHA), input('c.json', `${SHA}+dirty`)];
    let error: unknown;
    try {
      refuseModifiedCheckouts(inputs, false);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RbError);
    const rb = error as RbError;
    expect(rb.code).toBe('RESULT_DIRTY_TOOL');
    expect(rb.message.split('\n')).toEqual([
      'nothing was published: 2 of 3 file(s) were measured by runtime-bench from a checkout with uncommitted changes',
      `a.json: tool.gitCommit ${SHA}+dirty`,
      `c.json: tool.gitCommit ${SHA}+dirty`,
    ]);
    expect(rb.hint).toMatch(/commit .* run the benchmark again .*--allow-dirty/);
  });

  test('allowed with --allow-dirty; clean commits and results outside a checkout pass without it', () => {
    expect(() => refuseModifiedCheckouts([input('a.json', `${SHA}+dirty`)], true)).not.toThrow();
    expect(() => refuseModifiedCheckouts([input('b.json', SHA), input('n.json', null)], false)).not.toThrow();
  });
});
