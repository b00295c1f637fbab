// The shared formatter, table-driven with values worked out by hand.
import { describe, expect, test } from 'vitest';
import {
  formatChange,
  formatDetectable,
  formatNumber,
  formatP,
  formatPercent,
  formatRatio,
  formatSignedValue,
  formatTime,
  formatValue,
  scaleValue,
} from '../../../src/format/index.ts';

describe('formatValue: units for humans', () => {
  test.each([
    [2_621_440, 'bytes', '2.5 MiB'],
    [1536, 'bytes', '1.5 KiB'],
    [512, 'bytes', '512 B'],
    [8 * 1024 ** 3, 'bytes', '8 GiB'],
    [0.412, 'ms', '412 µs'],
    [1500, 'ms', '1.5 s'],
    [173.8189575, 'ms', '173.8 ms'],
    [950, 'us', '950 µs'],
    [2500, 'us', '2.5 ms'],
    [42, 'ns', '42 ns'],
    [12, 'count', '12'],
    [0.25, 'ratio', '0.25'],
    [1843.21, 'events/s', '1843 events/s'],
    [12345.6, 'events/s', '12346 events/s'],
    [0.5, 'MiB/s', '512 KiB/s'],
    [2048, 'MiB/s', '2 GiB/s'],
    [3000, 'IOPS', '3000 IOPS'],
    [0, 'ms', '0 ms'],
    [-5, 'ms', '-5 ms'],
  ])('%s %s → %s', (value, unit, expected) => {
    expect(formatValue(value, unit)).toBe(expected);
  });

  test.each([NaN, Infinity, -Infinity, null, undefined])('%s is never printed as such', (v) => {
    expect(formatValue(v, 'ms')).toBe('–');
    expect(formatNumber(v)).toBe('–');
    expect(formatChange(v)).toBe('–');
    expect(formatRatio(v)).toBe('–');
    expect(formatP(v)).toBe('–');
    expect(formatPercent(v)).toBe('–');
  });

  test('scaleValue keeps the unit a chart axis needs', () => {
    expect(scaleValue(2_621_440, 'bytes')).toEqual({ value: 2.5, unit: 'MiB' });
    expect(scaleValue(7, 'count')).toEqual({ value: 7, unit: '' });
  });
});

describe('numbers, changes, p-values', () => {
  test.each([
    [1234.5678, '1235'],
    [0.000012346, '1.235e-5'],
    [99.99999, '100'],
    [3.14159, '3.142'],
  ])('formatNumber(%s) → %s', (v, s) => expect(formatNumber(v)).toBe(s));

  test.each([
    [0.048, '+4.8 %'],
    [-0.0035, '−0.35 %'],
    [1.5, '+150 %'],
    [0, '±0 %'],
    [-0.00001, '±0 %'],
  ])('formatChange(%s) → %s', (v, s) => expect(formatChange(v)).toBe(s));

  test.each([
    [0.18, '≥ 18.0 %'],
    [0.0512, '≥ 5.1 %'],
    [2.5, '≥ 250 %'],
    [null, '–'],
    [Number.POSITIVE_INFINITY, '–'],
  ])('formatDetectable(%s) → %s', (v, s) => expect(formatDetectable(v)).toBe(s));

  test('ratios, p-values, percentages and times', () => {
    expect(formatRatio(1.23456)).toBe('×1.23');
    expect(formatP(0.00001)).toBe('<0.0001');
    expect(formatP(0.04321)).toBe('0.043');
    expect(formatPercent(0.125)).toBe('12.5 %');
    expect(formatTime('2026-11-21T08:00:59.999Z')).toBe('2026-11-21 08:00 UTC');
    expect(formatTime('not a time')).toBe('not a time');
  });
});

describe('formatSignedValue: a difference with its sign and unit', () => {
  test.each([
    [174.1, 'ms', '+174.1 ms'],
    [-8.47, 'ms', '−8.47 ms'],
    [0, 'ms', '±0 ms'],
    [-1.5 * 1024 ** 2, 'bytes', '−1.5 MiB'],
    [0.5, 'ms', '+500 µs'],
    [null, 'ms', '–'],
    [Number.NaN, 'ms', '–'],
  ])('formatSignedValue(%s, %s) → %s', (v, unit, s) => expect(formatSignedValue(v, unit)).toBe(s));
});
