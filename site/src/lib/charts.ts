// Chart specifications: the small, serialisable series a page hands to its <rb-chart> elements.
// Built here (pure, tested) so that the browser code only draws.
import type { BenchmarkView, DistributionRow, TimeSeries, VersionChart } from './views/benchmark.ts';
import { displayUnit } from '@runtime-bench/runner/format';
import { seriesColours } from './colours.ts';

export interface ChartPoint {
  /** category index (line/strip charts) or epoch milliseconds (time charts) */
  x: number;
  y: number | null;
  lo?: number | null;
  hi?: number | null;
  /** tooltip text */
  note?: string;
  /** the run this point came from: clicking the point opens its page */
  run?: string;
}

export interface ChartDataset {
  label: string;
  /** filter tags: CRI and OCI runtime names */
  cri: string;
  oci: string;
  points: ChartPoint[];
  /** strip charts: the median and its interval, drawn as a bar and whisker */
  median?: number | null;
  lo?: number | null;
  hi?: number | null;
  /** strip charts: the quartiles, drawn as a box */
  q1?: number | null;
  q3?: number | null;
  /** the runtime family's colour (shade per version), the same on every chart */
  colour?: string;
}

export interface ChartSpec {
  kind: 'category' | 'time' | 'strip';
  title: string;
  xLabel: string;
  yLabel: string;
  /** category labels (category and strip charts) */
  labels: string[];
  datasets: ChartDataset[];
  /** the unit of y values (a result-schema unit) for tooltips; '' for percentages */
  unit: string;
}

/** Gives every dataset its runtime family's colour, with shades for further series of a family. */
function coloured(spec: ChartSpec): ChartSpec {
  const colours = seriesColours(spec.datasets.map((d) => d.oci));
  spec.datasets.forEach((d, i) => (d.colour = colours[i]));
  return spec;
}

const axisUnit = (unit: string) => displayUnit(unit) || 'count';

/** Trend over the versions of one runtime, one line per partner runtime. */
export function versionChartSpec(chart: VersionChart, hostClassId: string, unit: string): ChartSpec | null {
  const series = chart.series.filter((s) => s.hostClassId === hostClassId);
  if (series.length === 0) return null;
  const labels = chart.versions.filter((v) => series.some((s) => s.points.some((p) => p.version === v)));
  return coloured({
    kind: 'category',
    title: `${chart.runtime} versions`,
    xLabel: `${chart.runtime} version (${chart.engine ? 'container engine' : chart.kind === 'cri' ? 'CRI runtime' : 'OCI runtime'})`,
    yLabel: `median (${axisUnit(unit)})`,
    unit,
    labels,
    datasets: series.map((s) => {
      const byVersion = new Map(s.points.map((p) => [p.version, p]));
      return {
        label: chart.kind === 'cri' ? `${chart.runtime} + ${s.partner}` : `${s.partner} + ${chart.runtime}`,
        cri: s.criName,
        oci: s.ociName,
        points: labels.map((v, x) => {
          const p = byVersion.get(v);
          return p
            ? { x, y: p.median, lo: p.lower, hi: p.upper, note: `n = ${p.n} samples from ${p.runs} run(s)` }
            : { x, y: null };
        }),
      };
    }),
  });
}

/** Trend over nightly runs, one line per combination. */
export function timeChartSpec(
  series: readonly TimeSeries[],
  hostClassId: string,
  unit: string,
): ChartSpec | null {
  const mine = series.filter((s) => s.hostClassId === hostClassId);
  if (mine.length === 0) return null;
  return coloured({
    kind: 'time',
    title: 'over time (click a point to open its run)',
    xLabel: 'run start (UTC)',
    yLabel: `median of the run (${axisUnit(unit)})`,
    unit,
    labels: [],
    datasets: mine.map((s) => ({
      label: s.combo,
      cri: s.criName,
      oci: s.ociName,
      points: s.points.map((p) => ({
        x: p.t,
        y: p.median,
        note: `${p.runId} · ${p.versions} · n = ${p.n}`,
        run: p.runId,
      })),
    })),
  });
}

/** Raw samples of the newest run of each combination, as a strip plot with median and interval. */
export function stripChartSpec(
  rows: readonly DistributionRow[],
  hostClassId: string,
  unit: string,
): ChartSpec | null {
  const mine = rows.filter((r) => r.hostClassId === hostClassId && r.samples.length > 0);
  if (mine.length === 0) return null;
  return coloured({
    kind: 'strip',
    title: 'raw samples of the latest runs: box = quartiles, bar = median, whisker = its 95 % CI',
    xLabel: 'CRI (or engine) / runtime handler',
    yLabel: `sample (${axisUnit(unit)})`,
    unit,
    labels: mine.map((r) => r.combo),
    datasets: mine.map((r, x) => ({
      label: r.label,
      cri: r.criName,
      oci: r.ociName,
      points: r.samples.map((y, i) => ({
        x,
        y,
        note: `sample ${i + 1} of ${r.samples.length}`,
        run: r.run.runId,
      })),
      median: r.median,
      lo: r.interval?.lower ?? null,
      hi: r.interval?.upper ?? null,
      q1: r.p25,
      q3: r.p75,
    })),
  });
}

/** The charts of one host class section of a benchmark page. */
export function benchmarkSpecs(view: BenchmarkView, hostClassId: string) {
  const unit = view.metric.unit;
  return {
    versions: view.versionCharts
      .map((c) => versionChartSpec(c, hostClassId, unit))
      .filter((s): s is ChartSpec => s !== null),
    time: timeChartSpec(view.timeSeries, hostClassId, unit),
    strip: stripChartSpec(view.distributions, hostClassId, unit),
  };
}
