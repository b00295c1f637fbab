// The site index: every validated result file flattened into one observation per run × target ×
// metric, which each page view (views/*.ts) selects from. Pure: plain values in, plain values out;
// the files are read by load.ts.
import { hostClassOf, type Direction, type RunResult, type Unit } from '@runtime-bench/schemas';
import { median } from '@runtime-bench/runner/stats';
import type { LoadedRun } from './load.ts';
import { slugify } from './slug.ts';

/** The marker of generated files (site/bench/synthetic.ts); such runs are never shown as real. */
export function isSynthetic(run: RunResult): boolean {
  return run.tool.version === 'synthetic' || run.host.hostname.startsWith('synthetic-');
}

export interface RunMeta {
  index: number;
  runId: string;
  file: string;
  startedAt: string;
  time: number;
  hostClass: string;
  hostClassId: string;
  hostname: string;
  synthetic: boolean;
  status: RunResult['status'];
  incompleteReason: string | undefined;
  toolVersion: string;
}

/** One metric across all runs: its benchmark (the family), name, unit and better direction. */
export interface MetricInfo {
  key: string;
  benchmark: string;
  benchmarkDescription: string;
  metric: string;
  unit: Unit;
  direction: Direction;
  description: string;
  /** URL path below /benchmark/, e.g. "operations.container.lifecycle/createcontainer" */
  slug: string;
}

/** A CRI runtime × runtime handler as it appears across runs, e.g. "containerd/runc". */
export interface ComboRef {
  combo: string;
  criName: string;
  criVersion: string;
  ociName: string;
  ociVersion: string;
  handler: string;
}

/** The combination an observation (or any ComboRef-shaped value) belongs to, and nothing more. */
export function comboRefOf(c: ComboRef): ComboRef {
  const { combo, criName, criVersion, ociName, ociVersion, handler } = c;
  return { combo, criName, criVersion, ociName, ociVersion, handler };
}

/** One metric of one target of one run, including benchmarks that produced no samples. */
export interface Observation extends ComboRef {
  run: number;
  hostClassId: string;
  time: number;
  metricKey: string;
  status: RunResult['results'][number]['status'];
  reason: string | undefined;
  samples: readonly number[];
  median: number | null;
  errors: number;
}

export interface HostClassInfo {
  id: string;
  label: string;
  runs: number;
  synthetic: boolean;
}

export interface SiteIndex {
  runs: RunMeta[];
  observations: Observation[];
  metrics: MetricInfo[];
  hostClasses: HostClassInfo[];
  criNames: string[];
  ociNames: string[];
  anySynthetic: boolean;
}

/** The label of a combination with its versions, e.g. "containerd 1.7.2 · runc 1.1.5". */
export function comboLabel(c: ComboRef): string {
  const handler = c.handler === c.ociName ? '' : ` (handler ${c.handler})`;
  return `${c.criName} ${c.criVersion} · ${c.ociName} ${c.ociVersion}${handler}`;
}

/**
 * The version-free name of a combination, stable across runs: the result's target id, i.e. the
 * config's endpoint label / runtime handler ("containerd/runc" by default). Two endpoints of one
 * run (say containerd 1.6 and 2.1, both with a "runc" handler) carry different labels, so their
 * columns and lines never merge.
 */
export function comboName(t: { id: string }): string {
  return t.id;
}

function metricKeyOf(benchmark: string, metric: string, unit: string): string {
  return `${benchmark}\u0000${metric}\u0000${unit}`;
}

/**
 * Flattens runs (sorted by start time, as loadRuns returns them) into one observation per
 * run × target × benchmark metric. A benchmark without samples (unsupported, failed, …) yields
 * an observation per metric of its definition, so that the reason reaches every cell.
 */
export function buildIndex(loaded: readonly LoadedRun[]): SiteIndex {
  const runs: RunMeta[] = [];
  const observations: Observation[] = [];
  const metrics = new Map<string, MetricInfo>();
  const metricOrder = new Map<string, number>();
  const hosts = new Map<string, HostClassInfo>();
  const criNames = new Set<string>();
  const ociNames = new Set<string>();
  for (const { run, file } of loaded) {
    const hostClass = hostClassOf(run.host);
    const hostClassId = slugify(hostClass);
    const synthetic = isSynthetic(run);
    const meta: RunMeta = {
      index: runs.length,
      runId: run.runId,
      file,
      startedAt: run.startedAt,
      time: Date.parse(run.startedAt),
      hostClass,
      hostClassId,
      hostname: run.host.hostname,
      synthetic,
      status: run.status,
      incompleteReason: run.incompleteReason,
      toolVersion: run.tool.version,
    };
    runs.push(meta);
    const host = hosts.get(hostClassId) ?? { id: hostClassId, label: hostClass, runs: 0, synthetic: true };
    host.runs++;
    host.synthetic &&= synthetic;
    hosts.set(hostClassId, host);
    const definitions = new Map(run.benchmarks.map((b) => [b.name, b]));
    // Later runs overwrite descriptions, so the newest wording wins; order follows definitions.
    for (const b of run.benchmarks) {
      b.metrics.forEach((m, i) => {
        const key = metricKeyOf(b.name, m.name, m.unit);
        metrics.set(key, {
          key,
          benchmark: b.name,
          benchmarkDescription: b.description,
          metric: m.name,
          unit: m.unit,
          direction: m.direction,
          description: m.description,
          slug: '',
        });
        if (!metricOrder.has(key)) metricOrder.set(key, i);
      });
    }
    const targets = new Map(run.targets.map((t) => [t.id, t]));
    for (const r of run.results) {
      const t = targets.get(r.target)!;
      criNames.add(t.cri.name);
      ociNames.add(t.oci.name);
      const combo: ComboRef = {
        combo: comboName(t),
        criName: t.cri.name,
        criVersion: t.cri.version,
        ociName: t.oci.name,
        ociVersion: t.oci.version,
        handler: t.handler,
      };
      const base = {
        ...combo,
        run: meta.index,
        hostClassId,
        time: meta.time,
        status: r.status,
        reason: r.reason,
      };
      const reported = new Set<string>();
      for (const m of r.metrics) {
        const key = metricKeyOf(r.benchmark, m.name, m.unit);
        reported.add(key);
        if (!metrics.has(key)) {
          // A metric missing from the definitions still deserves a row rather than silence.
          metrics.set(key, {
            key,
            benchmark: r.benchmark,
            benchmarkDescription: definitions.get(r.benchmark)?.description ?? r.benchmark,
            metric: m.name,
            unit: m.unit,
            direction: m.direction,
            description: m.name,
            slug: '',
          });
          metricOrder.set(key, 1000);
        }
        observations.push({
          ...base,
          metricKey: key,
          samples: m.samples,
          median: m.samples.length > 0 ? median(m.samples) : null,
          errors: m.errors.count,
        });
      }
      for (const def of definitions.get(r.benchmark)?.metrics ?? []) {
        const key = metricKeyOf(r.benchmark, def.name, def.unit);
        if (reported.has(key)) continue;
        observations.push({ ...base, metricKey: key, samples: [], median: null, errors: 0 });
      }
    }
  }
  const sorted = [...metrics.values()].sort(
    (a, b) =>
      a.benchmark.localeCompare(b.benchmark) ||
      metricOrder.get(a.key)! - metricOrder.get(b.key)! ||
      a.metric.localeCompare(b.metric) ||
      a.unit.localeCompare(b.unit),
  );
  const slugs = new Set<string>();
  for (const m of sorted) {
    let slug = `${m.benchmark}/${slugify(m.metric)}`;
    if (slugs.has(slug)) slug = `${slug}-${slugify(m.unit)}`;
    slugs.add(slug);
    m.slug = slug;
  }
  return {
    runs,
    observations,
    metrics: sorted,
    hostClasses: [...hosts.values()].sort((a, b) => b.runs - a.runs || a.label.localeCompare(b.label)),
    criNames: [...criNames].sort(),
    ociNames: [...ociNames].sort(),
    anySynthetic: runs.some((r) => r.synthetic),
  };
}
