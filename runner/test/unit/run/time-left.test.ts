import { describe, expect, test } from 'vitest';
import type { ProgressEvent } from '../../../src/run/orchestrate.ts';
import { formatTimeLeft, timeLeftTracker } from '../../../src/run/time-left.ts';
import { progressModeOf, progressPrinter } from '../../../src/commands/run.ts';

/** A run of two stages: "a" with 2 targets × 2 repetitions, then "b" with 1 target × 3. */
function events(): { event: ProgressEvent; at: number }[] {
  const out: { event: ProgressEvent; at: number }[] = [];
  let clock = 0;
  let done = 0;
  const total = 4 + 3;
  const stage = (name: string, targets: string[], reps: number, msEach: number): void => {
    let stageDone = 0;
    for (let r = 1; r <= reps; r++)
      for (const target of targets) {
        const base = {
          benchmark: name,
          target,
          repetition: r,
          repetitions: reps,
          warmup: false,
          stage: name,
          stageTotal: targets.length * reps,
          total,
        };
        out.push({ event: { ...base, stageDone, done }, at: clock });
        clock += msEach;
        stageDone += 1;
        done += 1;
        out.push({ event: { ...base, stageDone, done, outcome: { values: {}, errors: {} } }, at: clock });
      }
  };
  stage('a', ['t1', 't2'], 2, 100);
  stage('b', ['t1'], 3, 1000);
  return out;
}

describe('timeLeftTracker', () => {
  test('nothing timed yet: no estimate', () => {
    const t = timeLeftTracker();
    const [first] = events();
    t.observe(first!.event, first!.at);
    expect(t.leftMs()).toBeNull();
  });

  test('within a stage its own mean; later stages at the mean so far; each outcome updates', () => {
    const t = timeLeftTracker();
    const all = events();
    const seen: (number | null)[] = [];
    for (const { event, at } of all) {
      t.observe(event, at);
      if (event.outcome) seen.push(t.leftMs());
    }
    // Stage a: every repetition took 100 ms. After k of its 4: (4 - k) × 100 + 3 later × 100.
    expect(seen.slice(0, 4)).toEqual([600, 500, 400, 300]);
    // Stage b: its own mean (1000 ms) for its own rest, nothing later.
    expect(seen.slice(4)).toEqual([2000, 1000, 0]);
  });
});

test('formatTimeLeft', () => {
  expect(formatTimeLeft(12_400)).toBe('≈ 12 s left');
  expect(formatTimeLeft(185_000)).toBe('≈ 3 min 05 s left');
  expect(formatTimeLeft(3_720_000)).toBe('≈ 1 h 02 min left');
});

describe('progressPrinter', () => {
  const run = (mode: 'tty' | 'stages' | 'lines'): string => {
    let text = '';
    let clock = 0;
    const print = progressPrinter(
      mode,
      (t) => (text += t),
      () => clock,
    );
    for (const { event, at } of events()) {
      clock = at;
      print(event);
    }
    return text;
  };

  test('lines: one "ok" line per repetition, as CI logs and the kill tests read them', () => {
    const lines = run('lines').trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe('t1  a  run 1/2: ok');
    expect(lines[6]).toBe('t1  b  run 3/3: ok');
  });

  test('stages: a line when a stage starts and when it ends, with the time left', () => {
    expect(run('stages').trimEnd().split('\n')).toEqual([
      'a: 4 repetitions',
      'a: done  ≈ 0 s left',
      'b: 3 repetitions  ≈ 0 s left',
      'b: done',
    ]);
  });

  test('tty: one live line, the time left beside it once a repetition is timed', () => {
    const text = run('tty');
    expect(text).not.toContain('\n');
    expect(text).toContain('t2  a  run 2/2  ≈ 0 s left');
    expect(text).toContain('t1  b  run 2/3  ≈ 2 s left');
  });

  test('the mode: a terminal, GitHub Actions, anything else', () => {
    expect(progressModeOf(true, { GITHUB_ACTIONS: 'true' })).toBe('tty');
    expect(progressModeOf(false, { GITHUB_ACTIONS: 'true' })).toBe('stages');
    expect(progressModeOf(false, {})).toBe('lines');
  });
});
