// What the within-night sampling noise allows, whatever the gate does: for one call of one
// simulated target, the spread of ln(night median) at n samples (drawn from the noise model with
// no drift), and the power an oracle would have — the night-to-night variance known exactly,
// the night factor removed without error — with the gate's tests and its share of alpha.
// It bounds the simulated gate's power from above: the gate estimates its spread from K nights
// and its factor from the night's metrics.
import { median, normalCdf, normalQuantile, stdev, type Rng } from '../src/stats/index.ts';
import { drawIteration, type TargetNoise } from './nightly-noise.ts';

export interface SamplingBound {
  /** sd of ln(median of n samples) of the call, no drift (of the difference with the partner's, when given). */
  sigmaSampling: number;
  /** sd of the call's adjusted night: sampling and per-call drift together. */
  sigmaNight: number;
  /** Oracle power of the one-night test on one night and of the two-night mean test. */
  oneNight: number;
  twoNights: number;
  /** Union bound on flagging within 3 nights: 3 one-night tests and 2 two-night tests. */
  withinThree: number;
  /** Samples a night at which the two-night test alone reaches `power`; null when the drift alone forbids it. */
  samplesForPower: number | null;
}

export interface BoundInput {
  rng: Rng;
  target: TargetNoise;
  /** The reference handler the night is divided by: its median's sampling noise adds. */
  partner?: TargetNoise;
  call: string;
  n: number;
  /** sd of the per-call drift σ_m (and whatever else the factor leaves, e.g. 2σ_t² with controls). */
  drift: number;
  step: number;
  window: number;
  /** alpha × the test's share ÷ rows (Holm's strictest step), two-sided. */
  alphaOneNight: number;
  alphaTwoNights: number;
  power: number;
  draws?: number;
}

export function samplingBound(input: BoundInput): SamplingBound {
  const draws = input.draws ?? 400;
  // The partner's draws come from the same recorded rounds (nightly-noise.ts): the within-run
  // correlation of interleaved targets is kept.
  const rounds = input.target.iterations.length;
  const logMedian = (t: TargetNoise, picks: readonly number[]): number =>
    Math.log(median(picks.map((k) => drawIteration(input.rng, t, k)[input.call]!)));
  const logMedians = Array.from({ length: draws }, () => {
    const picks = Array.from({ length: input.n }, () => Math.floor(input.rng.next() * rounds));
    return logMedian(input.target, picks) - (input.partner ? logMedian(input.partner, picks) : 0);
  });
  const sigmaSampling = stdev(logMedians) ?? 0;
  const sigmaNight = Math.hypot(sigmaSampling, input.drift);
  const delta = Math.log1p(input.step);
  const zOne = normalQuantile(1 - input.alphaOneNight / 2);
  const zTwo = normalQuantile(1 - input.alphaTwoNights / 2);
  const k = input.window;
  const oneNight = normalCdf(delta / (sigmaNight * Math.sqrt(1 + 1 / k)) - zOne);
  const twoNights = normalCdf(delta / (sigmaNight * Math.sqrt(1 / 2 + 1 / k)) - zTwo);
  const needed = delta / ((zTwo + normalQuantile(input.power)) * Math.sqrt(1 / 2 + 1 / k));
  const samplingNeeded = needed ** 2 - input.drift ** 2;
  return {
    sigmaSampling,
    sigmaNight,
    oneNight,
    twoNights,
    withinThree: Math.min(1, 3 * oneNight + 2 * twoNights),
    samplesForPower: samplingNeeded > 0 ? Math.ceil((input.n * sigmaSampling ** 2) / samplingNeeded) : null,
  };
}
