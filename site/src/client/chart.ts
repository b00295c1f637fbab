// <rb-chart>: a <canvas> drawn by chart.js from the JSON spec next to it. Only the chart.js parts
// used here are registered, which keeps each page's JavaScript small.
import {
  CategoryScale,
  Chart,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartConfiguration,
  type Plugin,
} from 'chart.js';
import { formatValue } from '@runtime-bench/runner/format';
import type { ChartSpec } from '../lib/charts.ts';
import { matches, readFilter, type FilterState } from './filter-state.ts';

Chart.register(
  CategoryScale,
  LinearScale,
  LineController,
  ScatterController,
  LineElement,
  PointElement,
  Tooltip,
  Legend,
);

// Colours come with the spec (one per runtime family, lib/colours.ts); a point style and dash per
// series make sure colour is never the only cue.
const colourOf = (spec: ChartSpec, i: number) => spec.datasets[i]?.colour ?? '#555555';
const POINTS = ['circle', 'triangle', 'rect', 'rectRot', 'star', 'crossRot', 'cross', 'rectRounded'] as const;
const DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3]];

type Extra = { spec: ChartSpec };

/** Vertical whiskers for point intervals, and the median bar of strip plots. */
const intervals: Plugin<'line' | 'scatter'> = {
  id: 'rbIntervals',
  afterDatasetsDraw(chart) {
    const spec = (chart.options.plugins as unknown as Record<string, Extra>).rbIntervals?.spec;
    if (!spec) return;
    const { ctx } = chart;
    const y = chart.scales.y!;
    const x = chart.scales.x!;
    ctx.save();
    spec.datasets.forEach((d, i) => {
      if (!chart.isDatasetVisible(i)) return;
      ctx.strokeStyle = colourOf(spec, i);
      ctx.lineWidth = 1.5;
      if (spec.kind === 'strip') {
        if (d.median == null) return;
        const cx = x.getPixelForValue(d.points[0]?.x ?? i);
        const line = (v: number, half: number) => {
          ctx.beginPath();
          ctx.moveTo(cx - half, y.getPixelForValue(v));
          ctx.lineTo(cx + half, y.getPixelForValue(v));
          ctx.stroke();
        };
        if (d.q1 != null && d.q3 != null) {
          ctx.lineWidth = 1.5;
          const top = y.getPixelForValue(d.q3);
          ctx.strokeRect(cx - 14, top, 28, y.getPixelForValue(d.q1) - top);
        }
        ctx.lineWidth = 3;
        line(d.median, 18);
        if (d.lo != null && d.hi != null) {
          ctx.lineWidth = 1.5;
          line(d.lo, 8);
          line(d.hi, 8);
          ctx.beginPath();
          ctx.moveTo(cx, y.getPixelForValue(d.lo));
          ctx.lineTo(cx, y.getPixelForValue(d.hi));
          ctx.stroke();
        }
        return;
      }
      const meta = chart.getDatasetMeta(i);
      d.points.forEach((p, k) => {
        if (p.lo == null || p.hi == null || p.y == null) return;
        const el = meta.data[k];
        if (!el) return;
        ctx.beginPath();
        ctx.moveTo(el.x, y.getPixelForValue(p.lo));
        ctx.lineTo(el.x, y.getPixelForValue(p.hi));
        ctx.stroke();
      });
    });
    ctx.restore();
  },
};

function jitter(i: number): number {
  // Deterministic spread (golden-ratio sequence) so that screenshots do not change between loads.
  return (((i * 0.618034) % 1) - 0.5) * 0.5;
}

function extent(spec: ChartSpec): { suggestedMin?: number; suggestedMax?: number } {
  const values = spec.datasets.flatMap((d) => [
    d.lo,
    d.hi,
    d.q1,
    d.q3,
    ...d.points.flatMap((p) => [p.lo, p.hi]),
  ]);
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return finite.length ? { suggestedMin: Math.min(...finite), suggestedMax: Math.max(...finite) } : {};
}

/**
 * A real time axis on a linear scale (no date adapter needed): the range is the data's, padded
 * by a few percent (half a day for a single run), and tick labels show the time when the range is
 * short.
 */
function timeAxis(spec: ChartSpec) {
  const xs = spec.datasets.flatMap((d) => d.points.map((p) => p.x));
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = hi > lo ? (hi - lo) * 0.04 : 12 * 3600_000;
  const short = hi - lo + 2 * pad < 3 * 86400_000;
  return {
    min: lo - pad,
    max: hi + pad,
    ticks: {
      maxTicksLimit: 8,
      callback: (v: number | string) => {
        const iso = new Date(Number(v)).toISOString();
        return short ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
      },
    },
  };
}

function config(
  spec: ChartSpec,
  runBase: string,
  legendHeight: number,
): ChartConfiguration<'line' | 'scatter'> {
  const datasets = spec.datasets.map((d, i) => ({
    label: d.label,
    data: d.points.map((p, k) => ({ x: spec.kind === 'strip' ? p.x + jitter(k) : p.x, y: p.y })),
    borderColor: colourOf(spec, i),
    backgroundColor: colourOf(spec, i),
    pointStyle: POINTS[i % POINTS.length],
    borderDash: DASHES[i % DASHES.length],
    pointRadius: spec.kind === 'strip' ? 3 : 4,
    showLine: spec.kind !== 'strip',
    spanGaps: true,
  }));
  const categoryTicks = (v: number | string) => {
    const n = Number(v);
    return Number.isInteger(n) ? (spec.labels[n] ?? '') : '';
  };
  return {
    type: 'scatter',
    data: { datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      parsing: false,
      normalized: true,
      scales: {
        x: {
          type: 'linear',
          title: { display: true, text: spec.xLabel },
          ...(spec.kind === 'time'
            ? timeAxis(spec)
            : {
                min: -0.5,
                max: spec.labels.length - 0.5,
                ticks: { autoSkip: false, callback: categoryTicks },
                // One tick per category, at the integer positions the points sit on.
                afterBuildTicks: (axis: { ticks: { value: number }[] }) => {
                  axis.ticks = spec.labels.map((_, value) => ({ value }));
                },
              }),
        },
        // Whiskers and median bars must fit inside the plot area too.
        y: { type: 'linear', title: { display: true, text: spec.yLabel }, ...extent(spec) },
      },
      // A point that came from a run opens that run's page.
      onClick: (_event, elements) => {
        const el = elements[0];
        const run = el ? spec.datasets[el.datasetIndex]?.points[el.index]?.run : undefined;
        if (run) location.href = `${runBase}?id=${encodeURIComponent(run)}`;
      },
      plugins: {
        // A legend of many series must not eat the plot: at most a quarter of the box, the rest
        // of the series named in the tooltips and the page's tables.
        legend: { position: 'bottom', labels: { usePointStyle: true }, maxHeight: legendHeight },
        tooltip: {
          callbacks: {
            title: (items) => {
              const it = items[0];
              if (!it) return '';
              const x = Number(spec.datasets[it.datasetIndex]?.points[it.dataIndex]?.x);
              return spec.kind === 'time'
                ? `${new Date(x).toISOString().slice(0, 16).replace('T', ' ')} UTC`
                : (spec.labels[Math.round(x)] ?? '');
            },
            label: (item) => {
              const d = spec.datasets[item.datasetIndex]!;
              const p = d.points[item.dataIndex]!;
              const value = (v: number | null | undefined) =>
                spec.unit ? formatValue(v, spec.unit) : `${formatValue(v)} %`;
              const ci = p.lo != null && p.hi != null ? ` (95 % CI ${value(p.lo)} – ${value(p.hi)})` : '';
              return `${d.label}: ${value(p.y)}${ci}${p.note ? ` · ${p.note}` : ''}`;
            },
          },
        },
        ...({ rbIntervals: { spec } } as object),
      },
    },
    plugins: [intervals],
  };
}

class RbChart extends HTMLElement {
  private chart: Chart<'line' | 'scatter'> | undefined;
  private spec: ChartSpec | undefined;
  private readonly onFilter = (e: Event) => this.filter((e as CustomEvent<FilterState>).detail);

  connectedCallback(): void {
    const json = this.querySelector('script[type="application/json"]')?.textContent;
    const canvas = this.querySelector('canvas');
    if (!json || !canvas) return;
    this.spec = JSON.parse(json) as ChartSpec;
    const box = canvas.parentElement!.clientHeight;
    this.chart = new Chart(canvas, config(this.spec, this.dataset.runBase ?? '/run/', Math.max(40, box / 4)));
    this.dataset.drawn = 'true';
    // the plot area's height, for the page tests (a phone must still see the data)
    this.dataset.plotHeight = String(Math.round(this.chart.chartArea.height));
    this.filter(readFilter());
    document.addEventListener('rb-filter', this.onFilter);
  }

  disconnectedCallback(): void {
    document.removeEventListener('rb-filter', this.onFilter);
    this.chart?.destroy();
  }

  private filter(f: FilterState): void {
    if (!this.chart || !this.spec) return;
    let visible = 0;
    this.spec.datasets.forEach((d, i) => {
      const show = matches({ cri: d.cri, oci: d.oci }, f);
      this.chart!.setDatasetVisibility(i, show);
      if (show) visible++;
    });
    this.chart.update();
    const empty = this.querySelector<HTMLElement>('.rb-chart-empty');
    if (empty) empty.hidden = visible > 0;
  }
}

customElements.define('rb-chart', RbChart);
