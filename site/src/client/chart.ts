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

// Okabe & Ito's colour-blind-safe palette (yellow last: weak contrast on white), with a point
// style and dash per series so that colour is never the only cue.
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#000000', '#F0E442'];
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
      ctx.strokeStyle = COLOURS[i % COLOURS.length]!;
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
  const values = spec.datasets.flatMap((d) => [d.lo, d.hi, ...d.points.flatMap((p) => [p.lo, p.hi])]);
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return finite.length ? { suggestedMin: Math.min(...finite), suggestedMax: Math.max(...finite) } : {};
}

function config(spec: ChartSpec): ChartConfiguration<'line' | 'scatter'> {
  const datasets = spec.datasets.map((d, i) => ({
    label: d.label,
    data: d.points.map((p, k) => ({ x: spec.kind === 'strip' ? p.x + jitter(k) : p.x, y: p.y })),
    borderColor: COLOURS[i % COLOURS.length],
    backgroundColor: COLOURS[i % COLOURS.length],
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
            ? { ticks: { callback: (v) => new Date(Number(v)).toISOString().slice(0, 10), maxTicksLimit: 8 } }
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
      plugins: {
        legend: { position: 'bottom', labels: { usePointStyle: true } },
        tooltip: {
          callbacks: {
            title: (items) => {
              const it = items[0];
              if (!it) return '';
              const x = Number(spec.datasets[it.datasetIndex]?.points[it.dataIndex]?.x);
              return spec.kind === 'time' ? new Date(x).toISOString() : (spec.labels[x] ?? '');
            },
            label: (item) => {
              const d = spec.datasets[item.datasetIndex]!;
              const p = d.points[item.dataIndex]!;
              const ci = p.lo != null && p.hi != null ? ` (95 % CI ${p.lo}–${p.hi})` : '';
              return `${d.label}: ${p.y}${ci}${p.note ? ` · ${p.note}` : ''}`;
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
    this.chart = new Chart(canvas, config(this.spec));
    this.dataset.drawn = 'true';
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
