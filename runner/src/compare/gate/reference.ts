// The pinned reference handler's per-metric medians: what a metric row divides out when the run
// measured a reference beside its target (GateOptions.references).
import type { MetricResult } from '@runtime-bench/schemas';
import { logSpread, median, medianSamplingVariance } from '../../stats/index.ts';
import { CHANGE_POINT_HISTORY } from './change-point.ts';
import type { ReferenceFactors } from './factors.ts';
import type { Series } from './series.ts';

/**
 * The reference handler's own median of `metric` on each of its comparable ok nights (the latest
 * CHANGE_POINT_HISTORY) and tonight, on the log scale, centred on their median (a constant
 * cancels in the test; centred, tonight's value reads as "the reference ran x % slower than
 * usual"). Dividing it out removes everything the night did to this call on this host — the
 * shared drift and the call's own drift, which the targets of a night share (docs/calibration-log.md, "Power
 * from controls") — at the price of the reference's sampling noise, which the test then counts.
 */
export function referenceFactorsOf(reference: Series, metric: MetricResult, runId: string): ReferenceFactors {
  const sign = metric.direction === 'lower' ? 1 : -1;
  const nights = [
    ...reference.points
      .filter((p) => p.result.status === 'ok')
      .slice(-CHANGE_POINT_HISTORY)
      .map((p) => ({ runId: p.run.runId, result: p.result })),
    { runId, result: reference.result },
  ];
  const logs = new Map<string, number>();
  const sampling = new Map<string, number>();
  for (const night of nights) {
    const m = night.result.metrics.find(
      (x) => x.name === metric.name && x.unit === metric.unit && x.direction === metric.direction,
    );
    const spread = m && m.samples.length > 1 ? logSpread(m.samples) : null;
    if (!m || spread === null) continue;
    logs.set(night.runId, Math.log(median(m.samples)));
    sampling.set(night.runId, medianSamplingVariance(spread ** 2, m.samples.length));
  }
  const centre = logs.size ? median([...logs.values()]) : 0;
  return {
    factors: new Map([...logs].map(([id, l]) => [id, sign * (l - centre)])),
    sampling,
  };
}

/**
 * referenceFactorsOf for one evaluation, each reference metric computed once however many targets
 * divide by it (the replay evaluates every run of a history). Made per evaluation: no module state.
 */
export function referenceFactorsMemo(
  runId: string,
): (reference: Series, metric: MetricResult) => ReferenceFactors {
  const memo = new Map<Series, Map<string, ReferenceFactors>>();
  return (reference, metric) => {
    const byMetric = memo.get(reference) ?? new Map<string, ReferenceFactors>();
    memo.set(reference, byMetric);
    const key = `${metric.name}\u0000${metric.unit}\u0000${metric.direction}`;
    let factors = byMetric.get(key);
    if (!factors) byMetric.set(key, (factors = referenceFactorsOf(reference, metric, runId)));
    return factors;
  };
}
