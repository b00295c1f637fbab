// The metrics table of a run page, rendered to an HTML string. A run page exists for every result
// file (ten thousand at scale), and building this table from strings instead of a component tree
// is what keeps such a build within its time budget.
import type { BenchmarkResult } from '@runtime-bench/schemas';
import { escapeHtml, formatValue } from '@runtime-bench/runner/format';
import { medianInterval } from '@runtime-bench/runner/stats';

const HEAD = [
  'Metric',
  'n',
  'Median',
  '95 % CI',
  'Mean',
  'Stdev',
  'Min',
  'Max',
  'p90',
  'Errors',
  'Raw samples',
];

/** Every metric of one benchmark result of one target: summary, interval, errors, raw samples. */
export function metricsTableHtml(result: BenchmarkResult): string {
  const rows = result.metrics.map((m) => {
    const v = (x: number | null | undefined) => escapeHtml(formatValue(x, m.unit));
    const s = m.summary;
    const ci = medianInterval(m.samples);
    const errors =
      m.errors.messages.length > 0
        ? `<ul class="small">${m.errors.messages.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`
        : '';
    return (
      `<tr data-metric="${escapeHtml(m.name)}"><th scope="row">${escapeHtml(m.name)}<div class="small">${escapeHtml(m.unit)}, ${m.direction} is better</div></th>` +
      `<td class="num">${m.samples.length}</td>` +
      `<td class="num median">${v(s?.median)}</td>` +
      `<td class="num">${ci ? `${v(ci.lower)}–${v(ci.upper)}` : '—'}</td>` +
      `<td class="num">${v(s?.mean)}</td><td class="num">${v(s?.stdev)}</td><td class="num">${v(s?.min)}</td>` +
      `<td class="num">${v(s?.max)}</td><td class="num">${v(s?.p90)}</td>` +
      `<td class="num">${m.errors.count}${errors}</td>` +
      `<td class="samples"><details><summary>${m.samples.length} samples</summary>${m.samples.join(', ')}</details></td></tr>`
    );
  });
  return (
    `<table class="metrics" data-target="${escapeHtml(result.target)}" data-benchmark="${escapeHtml(result.benchmark)}">` +
    `<thead><tr>${HEAD.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}
