import { describe, expect, it } from 'vitest';
import {
  positionLook,
  signedRank,
  type BadDirection,
  type PairedLogT,
  type SignedRank,
} from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface PairedRef {
  n: number;
  meanLog: number;
  t: number;
  df: number;
  ratio: number;
  ratioLower: number;
  ratioUpper: number;
}
interface Case {
  name: string;
  good: number[];
  candidate: number[];
  bad: number[];
  direction: BadDirection;
  alpha: number;
  look: number;
  looks: number;
  pCritical: number;
  verdict: string;
  endsVerdict: string;
  vsGood: SignedRank;
  vsBad: SignedRank;
  ends: SignedRank;
  candidateVsGood: PairedRef;
  badVsGood: PairedRef;
  position: number;
}

const { cases } = loadFixture<{ cases: Case[] }>('sequential-position.json');

function expectRank(actual: SignedRank, ref: SignedRank): void {
  expect(actual.n).toBe(ref.n);
  expect(actual.wPlus).toBe(ref.wPlus);
  expectClose(actual.z, ref.z, 1e-9, 1e-12);
  expectClose(actual.pGreater, ref.pGreater, 1e-9, 1e-300);
  expectClose(actual.pLess, ref.pLess, 1e-9, 1e-300);
}

function expectPaired(actual: PairedLogT, ref: PairedRef): void {
  expect(actual.n).toBe(ref.n);
  expect(actual.df).toBe(ref.df);
  expectClose(actual.meanLog, ref.meanLog, 1e-9, 1e-14);
  expectClose(actual.t, ref.t, 1e-9);
  expectClose(actual.ratio, ref.ratio, 1e-12);
  expectClose(actual.ratioLower, ref.ratioLower, 1e-9);
  expectClose(actual.ratioUpper, ref.ratioUpper, 1e-9);
}

describe('positionLook against scipy', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const opts = { direction: c.direction, alpha: c.alpha, look: c.look, looks: c.looks };
    const r = positionLook(c.good, c.candidate, c.bad, opts);
    expect(r.verdict).toBe(c.verdict);
    expectClose(r.pCritical, c.pCritical, 1e-15);
    expectClose(r.alphaPerLook, c.alpha / c.looks, 1e-15);
    expectRank(r.vsGood, c.vsGood);
    expectRank(r.vsBad, c.vsBad);
    expectPaired(r.candidateVsGood, c.candidateVsGood);
    expectPaired(r.badVsGood, c.badVsGood);
    expectClose(r.position, c.position, 1e-9);
  });
});

describe('edge cases', () => {
  const opts = { direction: 'larger' as const, look: 1, looks: 3 };
  it('refuses one round, unequal rounds, non-positive and non-finite values, bad looks', () => {
    expect(() => positionLook([1], [1], [1], opts)).toThrow(/two rounds/);
    expect(() => positionLook([1, 2], [1], [1, 2], opts)).toThrow(/unequal length/);
    expect(() => positionLook([1, 0], [1, 1], [1, 1], opts)).toThrow(/good\[1\] = 0/);
    expect(() => positionLook([1, Number.NaN], [1, 1], [1, 1], opts)).toThrow(/good: value 1 is NaN/);
    expect(() => positionLook([], [], [], opts)).toThrow(/no values/);
    expect(() => positionLook([1, 2], [1, 2], [1, 2], { ...opts, look: 4 })).toThrow(/look 4 is not in 1..3/);
    expect(() => positionLook([1, 2], [1, 2], [1, 2], { ...opts, alpha: 0 })).toThrow(/alpha 0/);
  });
  it('identical rounds: no difference, an undefined position, unclear on the last look', () => {
    const x = [5, 5, 5, 5];
    const r = positionLook(x, x, x, { ...opts, look: 3 });
    expect(r.vsGood).toEqual({ n: 0, wPlus: 0, z: 0, pGreater: 1, pLess: 1 });
    expect(r.position).toBeNull();
    expect(r.verdict).toBe('unclear');
  });
  it('one difference is ranked; no difference is an error', () => {
    expect(signedRank([0.5])).toMatchObject({ n: 1, wPlus: 1 });
    expect(() => signedRank([])).toThrow(/no values/);
  });
  it('constant differences decide once the rounds can reach the boundary', () => {
    const g = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
    const b = g.map((v) => v * 2);
    expect(positionLook(g, g, b, opts).verdict).toBe('good');
    expect(positionLook(g, b, b, opts).verdict).toBe('bad');
  });
});
