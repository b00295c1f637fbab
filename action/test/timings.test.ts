import { describe, expect, test } from 'vitest';
import { parseTimings, timingsMarkdown } from '../src/timings.ts';

describe('runner-side cost', () => {
  test('parses the step lines setup.sh and main.ts write, skipping malformed ones', () => {
    const text =
      'setup\t5.7\treused (same pnpm-lock.yaml)\ninstall\t4.8\t\nbroken line\nup\tNaN\t\nrun\t11.7\t\n';
    expect(parseTimings(text)).toEqual([
      { step: 'setup', seconds: 5.7, note: 'reused (same pnpm-lock.yaml)' },
      { step: 'install', seconds: 4.8, note: '' },
      { step: 'run', seconds: 11.7, note: '' },
    ]);
  });

  test('the table lists every step; the overhead sums setup, install and stack up, not the run', () => {
    const md = timingsMarkdown([
      { step: 'setup', seconds: 5.5, note: 'a|b' },
      { step: 'install', seconds: 4.5, note: '' },
      { step: 'up', seconds: 14, note: '' },
      { step: 'run', seconds: 11.7, note: '' },
    ]);
    expect(md).toContain('| setup | 5.5 | a\\|b |');
    expect(md).toContain('| run | 11.7 |  |');
    expect(md).toContain('(setup + install + stack up): 24.0 s.');
    expect(timingsMarkdown([])).toBe('');
  });
});
