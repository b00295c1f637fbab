import { describe, expect, it } from 'vitest';
import {
  commitRange,
  firstParentArgs,
  mergeSideArgs,
  namedCandidates,
  parseCommitLines,
  releasesBetween,
} from '../../../src/bisect/candidates.ts';
import {
  alphaFlag,
  continueCommand,
  directionFlag,
  parseBudget,
  positiveInt,
} from '../../../src/bisect/options.ts';
import { bisectCommand } from '../../../src/bisect-request.ts';

const RUNC_TAGS = [
  'v1.1.4',
  'v1.1.5',
  'v1.1.6',
  'v1.2.0-rc.1',
  'v1.1.15',
  'v1.2.0',
  'v1.2.1',
  'v1.10.0',
  'v1.3.6',
  'v1.3.7',
];

describe('releasesBetween', () => {
  it('lists final releases from good to bad in version order, pre-releases left out', () => {
    expect(releasesBetween(RUNC_TAGS, '1.1.5', '1.3.6').map((c) => c.ref)).toEqual([
      '1.1.5',
      '1.1.6',
      '1.1.15',
      '1.2.0',
      '1.2.1',
      '1.3.6',
    ]);
    expect(releasesBetween(RUNC_TAGS, '1.1.5', '1.3.6')[0]).toEqual({
      kind: 'release',
      label: '1.1.5',
      ref: '1.1.5',
      commit: null,
    });
  });
  it('runs backwards when good is the newer release (an improvement lost)', () => {
    expect(releasesBetween(RUNC_TAGS, '1.2.1', '1.1.15').map((c) => c.ref)).toEqual([
      '1.2.1',
      '1.2.0',
      '1.1.15',
    ]);
  });
  it('refuses versions that are not releases, unknown ones and equal ends, naming the flag', () => {
    expect(() => releasesBetween(RUNC_TAGS, '1.2.0-rc.1', '1.3.6')).toThrow(
      /--good "1.2.0-rc.1" is not a release/,
    );
    expect(() => releasesBetween(RUNC_TAGS, '1.1.5', '1.9.9')).toThrow(/--bad 1.9.9 is not among/);
    expect(() => releasesBetween(RUNC_TAGS, '1.1.5', 'v1.1.5')).toThrow(/same release/);
  });
});

describe('git output', () => {
  const a = 'a'.repeat(40);
  const b = 'b'.repeat(40);
  it('parses commit lines, oldest first, subjects kept', () => {
    expect(parseCommitLines(`${a} libct: fix a thing\n${b} Merge pull request #1 from x/y\n\n`)).toEqual([
      { kind: 'commit', label: 'aaaaaaaaaaaa libct: fix a thing', ref: a, commit: a },
      { kind: 'commit', label: 'bbbbbbbbbbbb Merge pull request #1 from x/y', ref: b, commit: b },
    ]);
    expect(() => parseCommitLines('not a commit')).toThrow(/unexpected line/);
  });
  it('walks first parents oldest first, and a merge along its second parent', () => {
    expect(firstParentArgs('v1.1.5', 'v1.1.6')).toEqual([
      'log',
      '--first-parent',
      '--reverse',
      '--format=%H %s',
      'v1.1.5..v1.1.6',
    ]);
    expect(mergeSideArgs(a).at(-1)).toBe(`${a}^1..${a}^2`);
  });
  it('takes named candidates as commits (hash kept when it is one)', () => {
    expect(namedCandidates([a, 'v1.2.0-0.20240101000000-abcdef123456'])).toEqual([
      { kind: 'commit', label: a, ref: a, commit: a },
      {
        kind: 'commit',
        label: 'v1.2.0-0.20240101000000-abcdef123456',
        ref: 'v1.2.0-0.20240101000000-abcdef123456',
        commit: null,
      },
    ]);
  });
});

describe('commit ends', () => {
  const c = (x: string) => parseCommitLines(`${x.repeat(40)} change ${x}`)[0]!;
  it('takes good, the first-parent commits after it but bad, then bad', () => {
    expect(commitRange(c('a'), [c('b'), c('d'), c('e')], c('e')).map((x) => x.ref[0])).toEqual([
      'a',
      'b',
      'd',
      'e',
    ]);
  });
  it('refuses a bad that is not on the first-parent line after good, naming --bad', () => {
    expect(() => commitRange(c('a'), [c('b')], c('e'))).toThrow(
      /--bad eeeeeeeeeeee change e does not follow --good aaaaaaaaaaaa change a/,
    );
    expect(() => commitRange(c('a'), [], c('e'))).toThrow(/first-parent/);
  });
});

describe('flags', () => {
  it('parses budgets', () => {
    expect(parseBudget('30m')).toBe(30);
    expect(parseBudget('2h')).toBe(120);
    expect(parseBudget('1h30m')).toBe(90);
    expect(parseBudget('90s')).toBe(1.5);
    expect(parseBudget('45')).toBe(45);
    expect(() => parseBudget('soon')).toThrow(/--budget "soon" is not a duration/);
    expect(() => parseBudget('0m')).toThrow(/more than zero/);
  });
  it('checks numbers, alpha and direction, naming the flag', () => {
    expect(positiveInt('--looks', '15')).toBe(15);
    expect(() => positiveInt('--looks', '0')).toThrow(/--looks "0" is not a positive integer/);
    expect(alphaFlag('0.01')).toBe(0.01);
    expect(() => alphaFlag('1')).toThrow(/--alpha "1"/);
    expect(directionFlag('faster')).toBe('faster');
    expect(() => directionFlag('worse')).toThrow(/--direction "worse"/);
  });
  it('writes the exact bisect command, quoting what a shell would split', () => {
    expect(
      bisectCommand({
        component: 'runc',
        good: '1.1.5',
        bad: '1.3.6',
        benchmark: 'operations.container.lifecycle',
        metric: 'StartContainer',
        direction: 'slower',
      }),
    ).toBe(
      'runtime-bench bisect --component runc --good 1.1.5 --bad 1.3.6 --benchmark operations.container.lifecycle --metric StartContainer',
    );
    expect(
      bisectCommand({
        component: 'runc',
        good: '1',
        bad: '2',
        benchmark: 'a.b',
        metric: "it's",
        direction: 'faster',
      }),
    ).toBe(
      `runtime-bench bisect --component runc --good 1 --bad 2 --benchmark a.b --metric 'it'\\''s' --direction faster`,
    );
  });
  it('writes the command that goes on from the range a budget left', () => {
    const base = {
      component: 'runc',
      benchmark: 'operations.container.lifecycle',
      metric: 'StartContainer',
      direction: 'slower' as const,
      lastGoodRelease: '1.1.15',
      firstBadRelease: '1.2.0',
      lastGoodCommit: null,
      firstBadCommit: null,
    };
    expect(continueCommand(base, undefined)).toBe(
      'runtime-bench bisect --component runc --good 1.1.15 --bad 1.2.0 --benchmark operations.container.lifecycle --metric StartContainer',
    );
    const a = parseCommitLines(`${'a'.repeat(40)} x`)[0]!;
    const b = parseCommitLines(`${'b'.repeat(40)} y`)[0]!;
    expect(continueCommand({ ...base, lastGoodCommit: a, firstBadCommit: b }, '/src/my runc')).toBe(
      `runtime-bench bisect --component runc --good ${a.ref} --bad ${b.ref} --benchmark operations.container.lifecycle --metric StartContainer --git-dir '/src/my runc'`,
    );
    expect(continueCommand({ ...base, lastGoodRelease: null, firstBadRelease: null }, undefined)).toBeNull();
  });
});
