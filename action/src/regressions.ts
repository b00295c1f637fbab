// A simple regression check of one result against baseline results: a metric regresses when its
// median moved the bad way by more than the threshold AND Mann–Whitney says the samples differ
// (p < alpha); a benchmark that was ok and is no longer ok regresses too. Pure. The compare
// module's history gate (runner/src/compare) is the fuller tool for nightly history.
import type { RunResult } from '@runtime-bench/schemas';
import { mannWhitneyU, median } from '@runtime-bench/runner/stats';

export interface Regression {
  benchmark: string;
  target: string;
  metric: string | null;
  message: string;
}

export function findRegressions(
  current: RunResult,
  baselines: RunResult[],
  threshold = 0.05,
  alpha = 0.05,
): Regression[] {
  const out: Regression[] = [];
  for (const r of current.results) {
    const before = baselines.flatMap((b) =>
      b.results.filter((x) => x.benchmark === r.benchmark && x.target === r.target),
    );
    if (before.length === 0) continue;
    if (r.status !== 'ok' && before.some((b) => b.status === 'ok')) {
      out.push({
        benchmark: r.benchmark,
        target: r.target,
        metric: null,
        message: `${r.benchmark} on ${r.target}: was ok, now ${r.status}`,
      });
      continue;
    }
    for (const m of r.metrics) {
      const old = before.flatMap((b) => b.metrics.filter((x) => x.name === m.name).flatMap((x) => x.samples));
      if (old.length < 2 || m.samples.length < 2) continue;
      const m0 = median(old);
      const m1 = median(m.samples);
      if (m0 === 0) continue;
      const change = (m1 - m0) / Math.abs(m0);
      const worse = m.direction === 'lower' ? change > threshold : change < -threshold;
      if (!worse) continue;
      const { pValue } = mannWhitneyU(m.samples, old);
      if (pValue >= alpha) continue;
      out.push({
        benchmark: r.benchmark,
        target: r.target,
        metric: m.name,
        message: `${r.benchmark} ${m.name} on ${r.target}: median ${m0.toPrecision(3)} → ${m1.toPrecision(3)} ${m.unit} (${(change * 100).toFixed(1)} %, Mann–Whitney p = ${pValue.toPrecision(2)})`,
      });
    }
  }
  return out;
}
