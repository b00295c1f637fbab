/** Formats a measured value with about four significant digits and its unit. */
export function formatValue(value: number, unit?: string): string {
  const abs = Math.abs(value);
  let text: string;
  if (abs === 0) text = '0';
  else if (abs >= 1e6 || abs < 1e-3) text = value.toExponential(3);
  else text = Number(value.toPrecision(4)).toString();
  return unit ? `${text} ${unit}` : text;
}

/** A ratio as a signed percentage change: 1.234 → "+23.4 %". */
export function formatChange(ratio: number): string {
  const pct = (ratio - 1) * 100;
  const text = Math.abs(pct) >= 100 ? pct.toFixed(0) : pct.toFixed(1);
  return `${pct >= 0 ? '+' : '−'}${text.replace('-', '')} %`;
}

/** A p-value the way papers print it. */
export function formatP(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

/** An ISO timestamp as "2026-11-21 08:00 UTC". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Bytes as GiB with one decimal. */
export function formatBytes(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}
