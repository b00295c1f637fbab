import { describe, expect, test } from 'vitest';
import { eDivisive, energyStatistics, outlierIndices } from '../../../src/stats/index.ts';
import { expectClose, loadFixture } from './fixtures.ts';

interface CpCase {
  name: string;
  series: number[];
  statistics: number[];
  changePoints?: number[];
}
const { cases } = loadFixture<{ cases: CpCase[] }>('change-points.json');

describe('E-divisive matches signal-processing-algorithms', () => {
  test.each(cases)('Q(τ) of $name', (c) => {
    const q = energyStatistics(c.series);
    expect(q).toHaveLength(c.statistics.length);
    c.statistics.forEach((v, i) => expectClose(q[i]!, v, 1e-9, 1e-12));
  });
  // The reference decides by a permutation test at p = 0.05; ours by a t-test at 0.001 (Otava's
  // default). On these cases (steps clear or absent; the fixture keeps only locations that 20
  // seeds of the reference agree on) the two find the same change points.
  test.each(cases.filter((c) => c.changePoints))('change points of $name', (c) => {
    expect(eDivisive(c.series).map((p) => p.index)).toEqual(c.changePoints);
  });
});

describe('change points of constructed series', () => {
  test('a step on the newest night is found there, tested as a new observation', () => {
    const series = [0, 0.01, -0.01, 0.005, -0.004, 0.002, 0, -0.006, 0.004, 0.2];
    const [cp] = eDivisive(series);
    expect(cp).toMatchObject({ index: 9, segment: [0, 10] });
    expect(cp!.pValue).toBeLessThan(1e-6);
  });
  test('a constant series has none; bad input is named', () => {
    expect(eDivisive([1, 1, 1, 1, 1])).toEqual([]);
    expect(() => eDivisive([1, Number.NaN])).toThrow(/series: value 1 is NaN/);
    expect(() => eDivisive([1, 2, 3], { alpha: 2 })).toThrow(/alpha/);
  });
});

describe('outliers', () => {
  const noise = [0, 0.01, -0.01, 0.005, -0.004, 0.002, 0, -0.006, 0.004, 0.001, -0.003, 0.007];
  test('a one-off +40 % night is an outlier; a step is not', () => {
    const spike = noise.map((v, i) => (i === 4 ? v + Math.log(1.4) : v));
    expect(outlierIndices(spike, { floor: Math.log(1.05) })).toEqual([4]);
    const step = noise.map((v, i) => (i >= 4 ? v + Math.log(1.4) : v));
    expect(outlierIndices(step, { floor: Math.log(1.05) })).toEqual([]);
  });
  test('the newest night is never an outlier (it may start a step); below the floor nothing is', () => {
    const last = [...noise.slice(0, -1), Math.log(1.4)];
    expect(outlierIndices(last)).toEqual([]);
    const small = noise.map((v, i) => (i === 4 ? v + 0.03 : v));
    expect(outlierIndices(small, { floor: Math.log(1.05) })).toEqual([]);
  });
});
