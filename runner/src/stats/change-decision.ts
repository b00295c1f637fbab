// The side-by-side change decision: for the metrics of one pair (a = the previous version, b = the
// new one) measured in the same run, the change, its interval, p and a verdict that can be read off
// the printed interval and threshold — with the error rate spent over the nights the pair may be
// repeated on (sequential looks) and Holm over the metrics of a night.
import { normalCdf, normalQuantile } from './distributions.ts';
import { shiftInterval, sideBySideRankTest, type Design, type SideBySideRankTest } from './paired.ts';

export type ChangeVerdict = 'regression' | 'improvement' | 'same' | 'unclear';
export type SpendingRule = 'pocock' | 'obrien-fleming' | 'bonferroni';
export const SPENDING_RULES: readonly SpendingRule[] = ['pocock', 'obrien-fleming', 'bonferroni'];

/** A change b/a − 1 with its interval; ±Infinity ends are unbounded. */
export interface ChangeInterval {
  change: number;
  lower: number;
  upper: number;
}

/**
 * The verdict read off a change's interval and the threshold τ (> 0, relative):
 * - regression: the interval lies entirely on the bad side of 0 and the change is at least τ
 *   the bad way (a latency: lower > 0 and change ≥ τ; a throughput: upper < 0 and change ≤ −τ);
 * - improvement: the same on the good side;
 * - same: the interval lies entirely inside (−τ, +τ);
 * - unclear: anything else (the interval reaches past ±τ, or a change beyond τ is not significant).
 * The four are disjoint: a regression's change is ≥ τ, beyond a "same" interval's upper end.
 */
export function readVerdict(
  c: ChangeInterval,
  threshold: number,
  direction: 'lower' | 'higher',
): ChangeVerdict {
  checkThreshold(threshold);
  const badUp = direction === 'lower';
  if (c.lower > 0 && c.change >= threshold) return badUp ? 'regression' : 'improvement';
  if (c.upper < 0 && c.change <= -threshold) return badUp ? 'improvement' : 'regression';
  if (c.lower > -threshold && c.upper < threshold) return 'same';
  return 'unclear';
}

/**
 * The share of alpha a look may use. The looks are the nights the pair is measured on (at most
 * `looks`, information fraction t = look/looks: nights of equal size). The cumulative error
 * α(t) follows a Lan–DeMets (1983) spending function:
 * - 'pocock': α·ln(1 + (e − 1)·t) — early looks get a large share (first of 3: 45 %);
 * - 'obrien-fleming': 2 − 2·Φ(z₁₋α/₂ / √t) — early looks get almost nothing;
 * - 'bonferroni': α·t, equal shares.
 * Each look tests at its increment α(tⱼ) − α(tⱼ₋₁). That sum is at most α whatever the looks'
 * correlation (Bonferroni's inequality): conservative against the exact group-sequential
 * boundary of the same spending function (which solves for the correlation of the looks), and
 * valid whether the looks pool the nights' rounds or test each night alone.
 */
export function alphaSpending(
  alpha: number,
  look: number,
  looks: number,
  rule: SpendingRule,
): { cumulative: number; thisLook: number } {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`change decision: alpha ${alpha} is not in (0, 1)`);
  if (!Number.isInteger(looks) || looks < 1)
    throw new RangeError(`change decision: looks ${looks} is not a positive integer`);
  if (!Number.isInteger(look) || look < 1 || look > looks)
    throw new RangeError(`change decision: look ${look} is not in 1..${looks}`);
  if (!SPENDING_RULES.includes(rule))
    throw new RangeError(
      `change decision: unknown spending rule ${JSON.stringify(rule)}; use one of ${SPENDING_RULES.join(', ')}`,
    );
  const spent = (t: number): number => {
    if (t <= 0) return 0;
    if (rule === 'bonferroni') return alpha * t;
    if (rule === 'pocock') return alpha * Math.log(1 + (Math.E - 1) * t);
    return Math.min(alpha, 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t)));
  };
  const cumulative = look === looks ? alpha : spent(look / looks);
  return { cumulative, thisLook: cumulative - spent((look - 1) / looks) };
}

/** One metric of the pair: a = previous version, b = new version, both measured in this run (or these runs, pooled). */
export interface MetricPair {
  metric: string;
  /** The metric's better direction (a latency: lower). */
  direction: 'lower' | 'higher';
  /** The smallest relative change that matters, > 0 (0.03 = 3 %). */
  threshold: number;
  a: readonly number[];
  b: readonly number[];
  /** Sample k of a and of b come from the same round (see SideBySideOptions.roundsMatched). */
  roundsMatched: boolean;
}

export interface LookOptions {
  /** Error rate of the whole decision (all looks, all metrics of the pair), in (0, 1). */
  alpha: number;
  /** This look (night), 1-based, and the most nights the pair may be repeated on. */
  look: number;
  looks: number;
  spending: SpendingRule;
}

export interface MetricDecision extends ChangeInterval {
  metric: string;
  direction: 'lower' | 'higher';
  threshold: number;
  design: Design;
  why: string;
  test: SideBySideRankTest['test'];
  n: SideBySideRankTest['n'];
  /** Rank of the metric's p among the look's metrics (1 = smallest), Holm's step. */
  holmRank: number;
  /** The two-sided error level the interval is at: this look's alpha over Holm's divisor. */
  level: number;
  /** 1 − level: the printed interval's confidence. */
  confidence: number;
  /** The interval excludes 0 (read off it, not from p). */
  significant: boolean;
  verdict: ChangeVerdict;
  /** Decided: a verdict other than unclear, or unclear on the last look (the budget is spent). */
  final: boolean;
}

export interface LookDecision {
  look: number;
  looks: number;
  alpha: number;
  spending: SpendingRule;
  /** The error this look may use over all its metrics (Holm's family). */
  alphaThisLook: number;
  metrics: MetricDecision[];
  /** The metrics to measure again on the next night (unclear, looks left). */
  repeat: string[];
}

/**
 * One look of the version-change decision over the metrics still open. Holm (1979) over the
 * metrics at this look's alpha, carried out on intervals so that every verdict can be read off
 * the interval printed with it: metrics in ascending order of p; at step r the interval is at
 * level αⱼ/(m − r + 1) and "significant" means it excludes 0; the first step whose interval
 * holds 0 stops the procedure, and it and every later metric keep that step's level. (With the
 * interval the inversion of the metric's test, p ≤ level ⇔ the interval excludes 0, so this is
 * Holm's step-down; they can part only at ties or zero ratios on the boundary.) The verdict is
 * readVerdict of that interval.
 */
export function decideLook(metrics: readonly MetricPair[], options: LookOptions): LookDecision {
  if (metrics.length === 0) throw new RangeError('change decision: no metrics to decide');
  const names = new Set<string>();
  for (const m of metrics) {
    checkThreshold(m.threshold, m.metric);
    if (names.has(m.metric)) throw new RangeError(`change decision: metric ${m.metric} given twice`);
    names.add(m.metric);
  }
  const { thisLook } = alphaSpending(options.alpha, options.look, options.looks, options.spending);
  const tested = metrics.map((m) => sideBySideRankTest(m.a, m.b, { roundsMatched: m.roundsMatched }));
  const order = metrics.map((_, i) => i).sort((i, j) => tested[i]!.test.pValue - tested[j]!.test.pValue);
  const count = metrics.length;
  const decisions = new Array<MetricDecision>(count);
  let stopLevel: number | null = null;
  order.forEach((index, rank) => {
    const m = metrics[index]!;
    const t = tested[index]!;
    const level = stopLevel ?? thisLook / (count - rank);
    const s = shiftInterval(m.a, m.b, t.design, 1 - level);
    const c: ChangeInterval = { change: s.ratio - 1, lower: s.lower - 1, upper: s.upper - 1 };
    const significant = c.lower > 0 || c.upper < 0;
    if (!significant && stopLevel === null) stopLevel = level;
    const verdict = readVerdict(c, m.threshold, m.direction);
    decisions[index] = {
      metric: m.metric,
      direction: m.direction,
      threshold: m.threshold,
      design: t.design,
      why: t.why,
      test: t.test,
      n: t.n,
      ...c,
      holmRank: rank + 1,
      level,
      confidence: 1 - level,
      significant,
      verdict,
      final: verdict !== 'unclear' || options.look === options.looks,
    };
  });
  return {
    look: options.look,
    looks: options.looks,
    alpha: options.alpha,
    spending: options.spending,
    alphaThisLook: thisLook,
    metrics: decisions,
    repeat: decisions.filter((d) => !d.final).map((d) => d.metric),
  };
}

function checkThreshold(threshold: number, metric?: string): void {
  if (!(threshold > 0 && Number.isFinite(threshold)))
    throw new RangeError(
      `change decision${metric ? ` (${metric})` : ''}: threshold ${threshold} must be a finite relative change > 0, e.g. 0.03 for 3 %`,
    );
}
