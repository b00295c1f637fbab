// The one number formatter of runtime-bench: CLI tables, Markdown (compare/check, the job summary)
// and the site all print values through these functions, so a value reads the same everywhere.
// Units are scaled for humans (1.5 MiB, 2.30 s, 412 µs), counts carry no "count", and a value
// that is not a finite number never reaches the reader as "NaN" or "Infinity".

/** What a missing or non-finite value prints as. */
export const MISSING = '–';

/** About four significant digits, no exponent for everyday magnitudes, no trailing zeros noise. */
export function formatNumber(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  if (value === 0) return '0';
  const abs = Math.abs(value);
  // Large magnitudes keep their integer digits (12 345 rather than 1.235e+4).
  if (abs >= 10 ** digits && abs < 1e15) return Math.round(value).toString();
  if (abs >= 1e15 || abs < 1e-4) return value.toExponential(digits - 1);
  return Number(value.toPrecision(digits)).toString();
}

interface Scale {
  unit: string;
  factor: number;
}

// Each ladder is ordered from the smallest unit up; a value is shown in the largest unit it
// reaches at least 1 of (so 0.8 ms stays "800 µs", 1500 ms becomes "1.5 s").
const TIME: Scale[] = [
  { unit: 'ns', factor: 1e-9 },
  { unit: 'µs', factor: 1e-6 },
  { unit: 'ms', factor: 1e-3 },
  { unit: 's', factor: 1 },
];
const BYTES: Scale[] = [
  { unit: 'B', factor: 1 },
  { unit: 'KiB', factor: 1024 },
  { unit: 'MiB', factor: 1024 ** 2 },
  { unit: 'GiB', factor: 1024 ** 3 },
  { unit: 'TiB', factor: 1024 ** 4 },
];
const MIB_RATE: Scale[] = [
  { unit: 'KiB/s', factor: 1 / 1024 },
  { unit: 'MiB/s', factor: 1 },
  { unit: 'GiB/s', factor: 1024 },
];

/** The base of each unit of the result schema on its ladder (in the ladder's base unit). */
const LADDERS: Record<string, { ladder: Scale[]; factor: number }> = {
  ns: { ladder: TIME, factor: 1e-9 },
  us: { ladder: TIME, factor: 1e-6 },
  ms: { ladder: TIME, factor: 1e-3 },
  s: { ladder: TIME, factor: 1 },
  bytes: { ladder: BYTES, factor: 1 },
  'MiB/s': { ladder: MIB_RATE, factor: 1 },
};

/** Units printed as they are; "count" and "ratio" print as a bare number. */
const BARE = new Set(['count', 'ratio', '']);

/**
 * A value with its unit, scaled for humans: formatValue(2_621_440, 'bytes') → "2.5 MiB",
 * formatValue(0.412, 'ms') → "412 µs", formatValue(12, 'count') → "12", formatValue(NaN) → "–".
 * Without a unit the bare number is returned.
 */
export function formatValue(value: number | null | undefined, unit = ''): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  const scaled = scaleValue(value, unit);
  return scaled.unit ? `${formatNumber(scaled.value)} ${scaled.unit}` : formatNumber(scaled.value);
}

/**
 * A signed difference with its unit, scaled as formatValue scales it: "+203.3 ms", "−1.5 MiB",
 * "±0 ms" (a difference of two medians, where the sign is the news).
 */
export function formatSignedValue(value: number | null | undefined, unit = ''): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  const sign = value > 0 ? '+' : value < 0 ? '−' : '±';
  return `${sign}${formatValue(Math.abs(value), unit)}`;
}

/**
 * The unit a value is best shown in, and the value in it. Charts use this with a whole series'
 * typical value so one axis keeps one unit.
 */
export function scaleValue(value: number, unit: string): { value: number; unit: string } {
  if (BARE.has(unit)) return { value, unit: '' };
  const l = LADDERS[unit];
  if (!l || value === 0 || !Number.isFinite(value)) return { value, unit: displayUnit(unit) };
  const base = Math.abs(value) * l.factor;
  let chosen = l.ladder[0]!;
  for (const s of l.ladder) if (base >= s.factor * 0.9995) chosen = s;
  return { value: (value * l.factor) / chosen.factor, unit: chosen.unit };
}

/** How a schema unit is spelled for readers: "us" → "µs", "count" → "" (a bare number). */
export function displayUnit(unit: string): string {
  if (BARE.has(unit)) return '';
  if (unit === 'us') return 'µs';
  if (unit === 'bytes') return 'B';
  return unit;
}

/**
 * A relative change as a signed percentage: formatChange(0.048) → "+4.8 %",
 * formatChange(-0.0035) → "−0.35 %". `change` is a fraction (ratio − 1), not a ratio.
 */
export function formatChange(change: number | null | undefined): string {
  if (change === null || change === undefined || !Number.isFinite(change)) return MISSING;
  const pct = change * 100;
  const abs = Math.abs(pct);
  const text = abs >= 100 ? abs.toFixed(0) : abs >= 1 ? abs.toFixed(1) : abs.toFixed(2);
  if (Number(text) === 0) return '±0 %';
  return `${pct > 0 ? '+' : '−'}${text} %`;
}

/**
 * A minimum detectable effect (a fraction, the smallest |change| a comparison could flag) as
 * "≥ 18.0 %"; null / non-finite → "–".
 */
export function formatDetectable(detectable: number | null | undefined): string {
  if (detectable === null || detectable === undefined || !Number.isFinite(detectable)) return MISSING;
  return `≥ ${formatChange(Math.abs(detectable)).replace(/^\+/, '')}`;
}

/** A ratio of two values: formatRatio(1.2345) → "×1.23"; non-finite → "–". */
export function formatRatio(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return MISSING;
  return `×${formatNumber(ratio, 3)}`;
}

/** A p-value with two significant digits, or "<0.0001". */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return MISSING;
  if (p < 0.0001) return '<0.0001';
  return formatNumber(p, 2);
}

/** A fraction as a percentage with one decimal: 0.125 → "12.5 %". */
export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return MISSING;
  return `${(fraction * 100).toFixed(1)} %`;
}

/** An ISO timestamp as "2026-11-21 08:00 UTC"; an unparsable one is returned as it is. */
export function formatTime(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
