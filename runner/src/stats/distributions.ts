// Distribution functions come from stdlib (https://stdlib.io), a maintained numerical library
// whose implementations follow Boost.Math and Cephes, instead of hand-rolled special functions.
// stdlib's t CDF evaluates the regularised incomplete beta function directly for the lower tail,
// so studentTCdf(-|t|) keeps full relative precision for tiny p-values (1 - cdf(|t|) would not).
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import normCdf from '@stdlib/stats-base-dists-normal-cdf';

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

/**
 * Φ⁻¹(p), the standard normal quantile function, by Wichura's algorithm AS 241 (PPND16; Applied
 * Statistics 37(3), 1988): rational approximations in three regions with relative error about
 * 1e-16 for every p in (0, 1), down to the smallest subnormal (Φ⁻¹(1e-300) ≈ -37.04). stdlib's
 * normal quantile goes through erfcinv and loses digits below p ≈ 1e-13 (-Infinity at 1e-300).
 * Returns ∓Infinity at 0 / 1 and NaN outside [0, 1].
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(AS241_A, r)) / polynomial(AS241_B, r);
  }
  // The smaller tail, computed from p itself (not 1 - p) so tiny p keep their precision.
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  const x =
    r <= 5
      ? polynomial(AS241_C, r - 1.6) / polynomial(AS241_D, r - 1.6)
      : polynomial(AS241_E, r - 5) / polynomial(AS241_F, r - 5);
  return q < 0 ? -x : x;
}

/** c₀ + c₁x + … + c₇x⁷ by Horner's rule. */
function polynomial(c: readonly number[], x: number): number {
  let v = 0;
  for (let i = c.length - 1; i >= 0; i--) v = v * x + c[i]!;
  return v;
}

// AS 241 coefficients, lowest degree first, verbatim from Wichura (1988, PPND16): the published
// digits are kept so that they can be checked against the paper; doubles round them.
/* eslint-disable no-loss-of-precision */
const AS241_A = [
  3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
  45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727,
];
const AS241_B = [
  1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867,
  39307.89580009271061, 28729.085735721942674, 5226.495278852545925,
];
const AS241_C = [
  1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
  1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4,
];
const AS241_D = [
  1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459,
  0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9,
];
const AS241_E = [
  6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
  0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7,
];
const AS241_F = [
  1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525, 7.868691311456132591e-4,
  1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15,
];
/* eslint-enable no-loss-of-precision */
