// Runtime pages: one CRI or OCI runtime across its versions and every benchmark. Pure.
import { versionChartsOf, type VersionPoint } from './benchmark.ts';
import type { MetricInfo, RunTarget, SiteIndex } from '../site-index.ts';
import { sortVersions } from '../versions.ts';

export interface RuntimeVersionRow {
  version: string;
  partners: string[];
  hostClassIds: string[];
  runs: number;
  first: string;
  last: string;
}

export interface RuntimeRow {
  hostClassId: string;
  metric: MetricInfo;
  criName: string;
  ociName: string;
  partner: string;
  partnerVersion: string;
  /** the benchmark parameters of the row: an index into SiteIndex.parameterSets */
  parameters: number;
  /** one cell per version of the family's `versions` */
  cells: (VersionPoint | null)[];
}

export interface RuntimeFamily {
  benchmark: string;
  description: string;
  versions: string[];
  rows: RuntimeRow[];
}

export interface RuntimeView {
  kind: 'cri' | 'oci';
  name: string;
  versions: RuntimeVersionRow[];
  families: RuntimeFamily[];
}

/**
 * The runtimes that get a page, by kind. A container engine (Docker, Podman, nerdctl: its targets
 * have transport "engine") sits where a CRI runtime does — above the OCI runtime — so its page is
 * a "cri" page, marked `engine` to be named as what it is.
 */
export function runtimes(index: SiteIndex): { kind: 'cri' | 'oci'; name: string; engine: boolean }[] {
  const engines = new Set(index.runTargets.filter((t) => t.transport === 'engine').map((t) => t.criName));
  return [
    ...index.criNames.map((name) => ({ kind: 'cri' as const, name, engine: engines.has(name) })),
    ...index.ociNames.map((name) => ({ kind: 'oci' as const, name, engine: false })),
  ];
}

/** Everything one runtime page shows: its versions, and each metric's median per version. */
export function runtimeView(index: SiteIndex, kind: 'cri' | 'oci', name: string): RuntimeView {
  const mine = index.runTargets.filter((o) => (kind === 'cri' ? o.criName : o.ociName) === name);
  const versionOf = (o: RunTarget) => (kind === 'cri' ? o.criVersion : o.ociVersion);
  const partnerOf = (o: RunTarget) => (kind === 'cri' ? o.ociName : o.criName);

  const byVersion = new Map<string, { partners: Set<string>; hosts: Set<string>; runs: Set<number> }>();
  for (const o of mine) {
    const v = versionOf(o);
    const e = byVersion.get(v) ?? { partners: new Set(), hosts: new Set(), runs: new Set() };
    e.partners.add(partnerOf(o));
    e.hosts.add(o.hostClassId);
    e.runs.add(o.run);
    byVersion.set(v, e);
  }
  const versions: RuntimeVersionRow[] = sortVersions(byVersion.keys()).map((version) => {
    const e = byVersion.get(version)!;
    const runs = [...e.runs].sort((a, b) => a - b);
    return {
      version,
      partners: [...e.partners].sort(),
      hostClassIds: [...e.hosts].sort(),
      runs: runs.length,
      first: index.runs[runs[0]!]!.startedAt,
      last: index.runs[runs.at(-1)!]!.startedAt,
    };
  });

  const families: RuntimeFamily[] = [];
  for (const metric of index.metrics) {
    const chart = versionChartsOf(index, metric.key).find((c) => c.kind === kind && c.runtime === name);
    if (!chart || chart.series.length === 0) continue;
    let family = families.at(-1);
    if (!family || family.benchmark !== metric.benchmark) {
      family = {
        benchmark: metric.benchmark,
        description: metric.benchmarkDescription,
        versions: [],
        rows: [],
      };
      families.push(family);
    }
    for (const s of chart.series) {
      // cells hold this series' points for now; aligned to the family's versions below
      family.rows.push({
        hostClassId: s.hostClassId,
        metric,
        criName: s.criName,
        ociName: s.ociName,
        partner: s.partner,
        partnerVersion: s.partnerVersion,
        parameters: s.parameters,
        cells: s.points,
      });
    }
  }
  for (const family of families) {
    family.versions = sortVersions(family.rows.flatMap((r) => r.cells.map((c) => c!.version)));
    for (const row of family.rows) {
      const have = new Map(row.cells.map((c) => [c!.version, c]));
      row.cells = family.versions.map((v) => have.get(v) ?? null);
    }
    family.rows.sort(
      (a, b) =>
        a.hostClassId.localeCompare(b.hostClassId) ||
        index.metrics.indexOf(a.metric) - index.metrics.indexOf(b.metric) ||
        a.partner.localeCompare(b.partner),
    );
  }
  return { kind, name, versions, families };
}

/** The headline metric of each benchmark the runtime has results for: its first defined metric. */
export function headlineMetrics(view: RuntimeView): MetricInfo[] {
  return view.families.map((f) => f.rows.map((r) => r.metric)[0]!).filter(Boolean);
}
