/**
 * Ordinary least-squares line through equally spaced values y₀ … yₙ₋₁ at x = 0 … n − 1: the
 * slope b = Σ(x − x̄)(y − ȳ) / Sxx, its residual standard deviation s = √(Σ eᵢ² / (n − 2)) and
 * the slope's standard error s / √Sxx (df n − 2). The gate's trend alarm tests b on a metric's
 * night-factor-corrected log medians: a creep of a few percent a night is absorbed by a rolling
 * window (each night is near the nights just before it) but is a slope of the whole window.
 * Null with fewer than 3 values (no residual degrees of freedom).
 */
export interface LinearTrend {
  slope: number;
  intercept: number;
  /** Residual standard deviation (df = n − 2). */
  residualSd: number;
  /** Σ(x − x̄)²: the slope's standard error is σ / √sxx. */
  sxx: number;
  df: number;
}

export function linearTrend(ys: readonly number[]): LinearTrend | null {
  const n = ys.length;
  if (n < 3 || !ys.every(Number.isFinite)) return null;
  const xBar = (n - 1) / 2;
  let yBar = 0;
  for (const y of ys) yBar += y / n;
  let sxy = 0;
  let sxx = 0;
  ys.forEach((y, x) => {
    sxy += (x - xBar) * (y - yBar);
    sxx += (x - xBar) ** 2;
  });
  const slope = sxy / sxx;
  const intercept = yBar - slope * xBar;
  let sse = 0;
  ys.forEach((y, x) => (sse += (y - intercept - slope * x) ** 2));
  return { slope, intercept, residualSd: Math.sqrt(sse / (n - 2)), sxx, df: n - 2 };
}
