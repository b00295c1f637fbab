// Builds the site index (site-index.ts) from run digests (run-digest.ts): O(rows) numbers in
// columns per metric, no object per observation, so ten thousand runs fit. Pure.
import type { LoadedRun } from './load.ts';
import { digestRun, type RunDigest } from './run-digest.ts';
import {
  comboRefOf,
  STATUSES,
  type HostClassInfo,
  type MetricInfo,
  type Observation,
  type RunMeta,
  type RunTarget,
  type SideBySideRef,
  type SiteIndex,
} from './site-index.ts';
import { ENFORCEMENT_STATES } from './enforcement.ts';
import { Lineages } from './lineage.ts';
import { metricSlug } from '@runtime-bench/runner/site-paths';

/** One metric's rows across runs, as columns. */
interface MetricColumns {
  runTarget: number[];
  status: number[];
  median: number[];
  errors: number[];
  start: number[];
  n: number[];
  samples: number[];
  reasons: Map<number, string>;
  parameters: number[];
  enforcement: number[];
  enforcementWhy: Map<number, string>;
}

/**
 * Builds the site index from digests added oldest run first (as loadRuns sorts them): O(rows)
 * numbers in columns per metric, no object per observation, so ten thousand runs fit.
 */
export class IndexBuilder {
  private readonly runs: RunMeta[] = [];
  private readonly metrics = new Map<string, MetricInfo>();
  private readonly metricOrder = new Map<string, number>();
  private readonly hosts = new Map<string, HostClassInfo>();
  private readonly criNames = new Set<string>();
  private readonly ociNames = new Set<string>();
  private readonly runTargets: RunTarget[] = [];
  private readonly sideBySide: SideBySideRef[] = [];
  private readonly columns = new Map<string, MetricColumns>();
  private readonly keysByHost = new Map<string, Set<string>>();
  private readonly lineages = new Lineages();
  private readonly parameterSets: string[] = [];
  private readonly parameterIndex = new Map<string, number>();

  add(d: RunDigest): void {
    const meta: RunMeta = { index: this.runs.length, ...d.meta };
    this.runs.push(meta);
    const hostClassId = meta.hostClassId;
    const host = this.hosts.get(hostClassId) ?? {
      id: hostClassId,
      label: meta.hostClass,
      runs: 0,
      synthetic: true,
    };
    host.runs++;
    host.synthetic &&= meta.synthetic;
    this.hosts.set(hostClassId, host);
    // Later runs overwrite descriptions, so the newest wording wins; order follows definitions.
    for (const def of d.definitions) {
      if (def.fallback && this.metrics.has(def.key)) continue;
      const { order, fallback: _, ...info } = def;
      this.metrics.set(def.key, { ...info, slug: '' });
      if (!this.metricOrder.has(def.key)) this.metricOrder.set(def.key, order);
    }
    const firstTarget = this.runTargets.length;
    // each target continues the history of what it measured, whatever its id (lineage.ts)
    const lineage = this.lineages.assign(
      hostClassId,
      meta.index,
      d.targets.map((t) => ({ ...t, id: t.targetId })),
    );
    d.targets.forEach((t, i) => {
      this.criNames.add(t.criName);
      this.ociNames.add(t.ociName);
      this.runTargets.push({ ...comboRefOf(t), combo: lineage[i]!, run: meta.index, hostClassId });
    });
    for (const p of d.sideBySide)
      this.sideBySide.push({ ...p, run: meta.index, a: firstTarget + p.a, b: firstTarget + p.b });
    const parameterIds = d.parameterSets.map((json) => {
      let id = this.parameterIndex.get(json);
      if (id === undefined) this.parameterIndex.set(json, (id = this.parameterSets.push(json) - 1));
      return id;
    });
    let hostKeys = this.keysByHost.get(hostClassId);
    if (!hostKeys) this.keysByHost.set(hostClassId, (hostKeys = new Set()));
    const cols = d.keys.map((k) => {
      hostKeys.add(k);
      let c = this.columns.get(k);
      if (!c) {
        c = {
          runTarget: [],
          status: [],
          median: [],
          errors: [],
          start: [],
          n: [],
          samples: [],
          reasons: new Map(),
          parameters: [],
          enforcement: [],
          enforcementWhy: new Map(),
        };
        this.columns.set(k, c);
      }
      return c;
    });
    const rows = d.rows;
    const reasons = new Map(rows.reasons);
    const enforcementWhy = new Map(rows.enforcementWhy);
    let offset = 0;
    for (let i = 0; i < rows.key.length; i++) {
      const c = cols[rows.key[i]!]!;
      const reason = reasons.get(i);
      if (reason !== undefined) c.reasons.set(c.runTarget.length, reason);
      const why = enforcementWhy.get(i);
      if (why !== undefined) c.enforcementWhy.set(c.runTarget.length, why);
      c.parameters.push(parameterIds[rows.parameters[i]!]!);
      c.enforcement.push(rows.enforcement[i]!);
      c.runTarget.push(firstTarget + rows.target[i]!);
      c.status.push(rows.status[i]!);
      c.median.push(rows.median[i]!);
      c.errors.push(rows.errors[i]!);
      c.start.push(c.samples.length);
      const count = rows.n[i]!;
      c.n.push(count);
      for (let j = 0; j < count; j++) c.samples.push(rows.samples[offset + j]!);
      offset += count;
    }
  }

  finish(): SiteIndex {
    const sorted = [...this.metrics.values()].sort(
      (a, b) =>
        a.benchmark.localeCompare(b.benchmark) ||
        this.metricOrder.get(a.key)! - this.metricOrder.get(b.key)! ||
        a.metric.localeCompare(b.metric) ||
        a.unit.localeCompare(b.unit),
    );
    const slugs = new Set<string>();
    for (const m of sorted) {
      const slug = metricSlug(m.benchmark, m.metric, m.unit, slugs);
      slugs.add(slug);
      m.slug = slug;
    }
    const { runs, runTargets, columns } = this;
    const observationsOf = (metricKey: string, where?: (runTarget: number) => boolean): Observation[] => {
      const c = columns.get(metricKey);
      if (!c) return [];
      const out: Observation[] = [];
      for (let i = 0; i < c.runTarget.length; i++) {
        const rt = c.runTarget[i]!;
        if (where && !where(rt)) continue;
        const t = runTargets[rt]!;
        const median = c.median[i]!;
        out.push({
          ...comboRefOf(t),
          run: t.run,
          hostClassId: t.hostClassId,
          time: runs[t.run]!.time,
          metricKey,
          status: STATUSES[c.status[i]!]!,
          reason: c.reasons.get(i),
          samples: c.samples.slice(c.start[i]!, c.start[i]! + c.n[i]!),
          median: Number.isNaN(median) ? null : median,
          errors: c.errors[i]!,
          parameters: c.parameters[i]!,
          enforcement:
            c.enforcement[i]! === 0
              ? null
              : { state: ENFORCEMENT_STATES[c.enforcement[i]! - 1]!, why: c.enforcementWhy.get(i) ?? '' },
        });
      }
      return out;
    };
    return {
      runs,
      metrics: sorted,
      hostClasses: [...this.hosts.values()].sort((a, b) => b.runs - a.runs || a.label.localeCompare(b.label)),
      criNames: [...this.criNames].sort(),
      ociNames: [...this.ociNames].sort(),
      anySynthetic: runs.some((r) => r.synthetic),
      parameterSets: this.parameterSets,
      runTargets,
      sideBySide: this.sideBySide,
      metricKeysByHost: this.keysByHost,
      observationsOf,
      rowsOf: (metricKey) => columns.get(metricKey),
      get observations() {
        return [...columns.keys()].flatMap((k) => observationsOf(k));
      },
    };
  }
}

/** The index of loaded runs (sorted by start time, as loadRuns returns them). */
export function buildIndex(loaded: readonly LoadedRun[]): SiteIndex {
  const builder = new IndexBuilder();
  for (const { run, file } of loaded) builder.add(digestRun(run, file));
  return builder.finish();
}
