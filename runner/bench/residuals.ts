// The within-run noise of StartContainer that the bisection benches draw from: log(sample / median
// of its run × target) over every lifecycle result of a history directory (data/runs).
import { readHistoryDir } from '../src/history/index.ts';
import { median } from '../src/stats/index.ts';

export async function startContainerResiduals(dir: string): Promise<number[]> {
  const residuals: number[] = [];
  for (const { run } of (await readHistoryDir(dir)).entries)
    for (const r of run.results) {
      if (r.benchmark !== 'operations.container.lifecycle') continue;
      const s = r.metrics.find((m) => m.name === 'StartContainer')?.samples ?? [];
      if (s.length < 5) continue;
      const med = median(s);
      for (const v of s) residuals.push(Math.log(v / med));
    }
  if (residuals.length === 0) throw new Error(`no StartContainer samples in ${dir}`);
  return residuals;
}
