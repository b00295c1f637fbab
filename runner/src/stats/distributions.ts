// Distribution functions come from stdlib (https://stdlib.io), a maintained numerical library
// whose implementations follow Boost.Math and Cephes, instead of hand-rolled special functions.
// stdlib's t CDF evaluates the regularised incomplete beta function directly for the lower tail,
// so studentTCdf(-|t|) keeps full relative precision for tiny p-values (1 - cdf(|t|) would not).
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import normCdf from '@stdlib/stats-base-dists-normal-cdf';
import normQuantile from '@stdlib/stats-base-dists-normal-quantile';

/** P(T ≤ x) for Student's t distribution with `df` (> 0, may be fractional) degrees of freedom. */
export function studentTCdf(x: number, df: number): number {
  return tCdf(x, df);
}

/** The p-quantile of Student's t distribution with `df` degrees of freedom. */
export function studentTQuantile(p: number, df: number): number {
  return tQuantile(p, df);
}

/** Φ(x), the standard normal CDF. */
export function normalCdf(x: number): number {
  return normCdf(x, 0, 1);
}

/** Φ⁻¹(p), the standard normal quantile function. */
export function normalQuantile(p: number): number {
  return normQuantile(p, 0, 1);
}
