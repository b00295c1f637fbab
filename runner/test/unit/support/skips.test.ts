import { describe, expect, test } from 'vitest';
import { judgeSkips, parseAllowedSkips, type SkipReport } from '../../support/skips.ts';

const report = (results: [string, string, string][]): SkipReport => ({
  numPassedTests: results.filter(([, s]) => s === 'passed').length,
  numFailedTests: 0,
  numPendingTests: results.filter(([, s]) => s === 'skipped').length,
  numTodoTests: results.filter(([, s]) => s === 'todo').length,
  testResults: [...new Set(results.map(([f]) => f))].map((file) => ({
    name: `/repo/${file}`,
    assertionResults: results
      .filter(([f]) => f === file)
      .map(([, status, fullName]) => ({ status, fullName })),
  })),
});

describe('judgeSkips', () => {
  const allowed = parseAllowedSkips(
    '- file: a.test.ts\n  test: nerdctl built from git\n  reason: no checkout here\n',
    'list',
  );

  test('a skip under a listed describe title carries its reason; passed tests are not skips', () => {
    const v = judgeSkips(
      report([
        ['a.test.ts', 'skipped', 'nerdctl built from git nerdctl v2.1.3: builds'],
        ['a.test.ts', 'passed', 'something else'],
      ]),
      allowed,
      '/repo',
    );
    expect(v).toEqual({
      skips: [
        {
          file: 'a.test.ts',
          test: 'nerdctl built from git nerdctl v2.1.3: builds',
          reason: 'no checkout here',
        },
      ],
      unlisted: 0,
    });
  });

  test('an unlisted skip, a todo, the same name in another file, a title that only shares a prefix: all unlisted', () => {
    const v = judgeSkips(
      report([
        ['a.test.ts', 'skipped', 'crictl transport runs a lifecycle'],
        ['a.test.ts', 'todo', 'later'],
        ['b.test.ts', 'skipped', 'nerdctl built from git x'],
        ['a.test.ts', 'skipped', 'nerdctl built from gitlab x'],
      ]),
      allowed,
      '/repo',
    );
    expect(v.unlisted).toBe(4);
  });

  test('an entry without a reason is refused, naming it', () => {
    expect(() => parseAllowedSkips('- file: a\n  test: b\n', 'scripts/allowed-skips.yaml')).toThrow(
      'scripts/allowed-skips.yaml: entry 1 needs a non-empty "reason"',
    );
    expect(() => parseAllowedSkips('file: a', 'l')).toThrow('expected a list');
  });
});
