// The overhead of a layer above the CRI on one metric: median(upper) − median(CRI) with a
// percentile-bootstrap interval, and median(upper) / median(CRI). One estimator for both layers
// (an engine over the CRI, Kubernetes over the CRI); which samples stand on each side is the
// caller's pairing (overhead/pairing.ts). Pure: no I/O.
import { bootstrapDifferenceOfMediansCI, median, type BootstrapOptions } from '../stats/index.ts';

/** One side's sample count and median (null without samples). */
export interface SideSummary {
  n: number;
  median: number | null;
}

/** Both medians, upper − CRI with its interval, and upper / CRI. */
export interface OverheadEstimate {
  /** the engine or pod side */
  upperLevel: SideSummary;
  criLevel: SideSummary;
  /** median(upper) − median(CRI), in the metric's unit; null when a side has no samples */
  difference: number | null;
  /** percentile-bootstrap interval of the difference; null with fewer than two samples a side */
  lower: number | null;
  upper: number | null;
  /** median(upper) / median(CRI); null when a side is missing or the CRI median is not > 0 */
  ratio: number | null;
}

/**
 * The overhead of one metric from its raw samples, both sides in one unit: the two sides are
 * independent measurements (different containers or pods), resampled independently by
 * bootstrapDifferenceOfMediansCI.
 */
export function overheadEstimate(
  cri: readonly number[],
  upper: readonly number[],
  bootstrap: BootstrapOptions,
): OverheadEstimate {
  const u = upper.length ? median(upper) : null;
  const c = cri.length ? median(cri) : null;
  const out: OverheadEstimate = {
    upperLevel: { n: upper.length, median: u },
    criLevel: { n: cri.length, median: c },
    difference: u !== null && c !== null ? u - c : null,
    lower: null,
    upper: null,
    ratio: u !== null && c !== null && c > 0 ? u / c : null,
  };
  if (upper.length >= 2 && cri.length >= 2) {
    const ci = bootstrapDifferenceOfMediansCI(cri, upper, bootstrap);
    out.lower = ci.lower;
    out.upper = ci.upper;
  }
  return out;
}
