// The compare view: two runs (or two targets of runs) side by side, one row per benchmark ×
// metric, sorted by the size of the change — `runtime-bench compare` in the browser. Every
// statistic comes from the runner's compareRuns; this module only picks the pairs worth
// pre-rendering and turns a report into table rows. Pure, and bundled into the client too.
import type { CompareReport, CompareRow } from '@runtime-bench/runner/compare-runs';
import { formatDetectable, formatP, formatRatio, formatValue, MISSING } from '@runtime-bench/runner/format';
import { median } from '@runtime-bench/runner/stats';
import type { RunResult } from '@runtime-bench/schemas';
import { enforcementOf } from '../enforcement.ts';

/** The columns of a compare table, in order. */
export const COMPARE_COLUMNS = [
  'Benchmark · metric',
  'Target',
  'Baseline median',
  'Candidate median',
  'Ratio [95 % CI]',
  'p (Holm)',
  'Could detect',
  'Verdict',
] as const;

/** Bootstrap settings of the site: seeded (the same pair shows the same interval everywhere). */
export const COMPARE_OPTIONS = { seed: 1, resamples: 4000 } as const;

/** How far a row moved: |ln ratio| for metrics, and status or error-rate rows after them. */
function size(row: CompareRow): number {
  if (row.kind !== 'metric') return -1;
  return row.ratio !== null && row.ratio > 0 ? Math.abs(Math.log(row.ratio)) : -0.5;
}

/** The rows of a report sorted by the size of the change, largest first. */
export function sortedRows(report: CompareReport): CompareRow[] {
  return [...report.rows].sort((a, b) => size(b) - size(a) || a.benchmark.localeCompare(b.benchmark));
}

function target(row: CompareRow): string {
  return row.baselineTarget === row.candidateTarget
    ? row.baselineTarget
    : `${row.baselineTarget} → ${row.candidateTarget}`;
}

/**
 * The report's rows the matrix would never rank (by index into report.rows), with why: a limits
 * benchmark whose limit either side did not enforce, or whose result cannot show it (the rule of
 * enforcement.ts, the same the matrix applies). Their medians are shown, their ratio and verdict not.
 */
export function apartRows(
  report: CompareReport,
  baseline: RunResult,
  candidate: RunResult,
): Record<number, string> {
  const out: Record<number, string> = {};
  const state = (run: RunResult, target: string, benchmark: string) => {
    const r = run.results.find((x) => x.target === target && x.benchmark === benchmark);
    if (!r) return null;
    const medians = new Map(r.metrics.map((m) => [m.name, m.samples.length > 0 ? median(m.samples) : null]));
    return enforcementOf(r.benchmark, r.parameters, (name) => medians.get(name) ?? null);
  };
  report.rows.forEach((row, i) => {
    if (row.kind !== 'metric') return;
    const sides = [
      ['baseline', state(baseline, row.baselineTarget, row.benchmark)],
      ['candidate', state(candidate, row.candidateTarget, row.benchmark)],
    ] as const;
    const off = sides.filter(([, e]) => e !== null && e.state !== 'enforced');
    if (off.length === 0) return;
    const label = off.some(([, e]) => e!.state === 'not enforced') ? 'not enforced' : 'enforcement not shown';
    out[i] = `${label}: ${off.map(([side, e]) => `${side} ${e!.why}`).join('; ')}`;
  });
  return out;
}

/** One compare row as the strings of COMPARE_COLUMNS; `apart`: why it is not compared (apartRows). */
export function compareCells(row: CompareRow, apart?: string): string[] {
  if (apart !== undefined && row.kind === 'metric')
    return [
      `${row.benchmark} · ${row.metric} ${row.direction === 'lower' ? '↓' : '↑'}`,
      target(row),
      `${formatValue(row.baseline.median, row.unit)} (n=${row.baseline.n})`,
      `${formatValue(row.candidate.median, row.unit)} (n=${row.candidate.n})`,
      MISSING,
      MISSING,
      MISSING,
      apart.split(':')[0]!,
    ];
  if (row.kind === 'status')
    return [
      `${row.benchmark} · status`,
      target(row),
      row.baseline,
      row.candidate,
      MISSING,
      MISSING,
      MISSING,
      row.verdict,
    ];
  if (row.kind === 'error-rate') {
    const rate = (c: { failed: number; attempts: number }) => `${c.failed}/${c.attempts} failed`;
    return [
      `${row.benchmark} · error rate`,
      target(row),
      rate(row.baseline),
      rate(row.candidate),
      MISSING,
      formatP(row.adjustedP),
      MISSING,
      row.verdict,
    ];
  }
  const ci =
    row.ratioLower !== null && row.ratioUpper !== null
      ? ` [${formatRatio(row.ratioLower)}, ${formatRatio(row.ratioUpper)}]`
      : '';
  return [
    `${row.benchmark} · ${row.metric} ${row.direction === 'lower' ? '↓' : '↑'}`,
    target(row),
    `${formatValue(row.baseline.median, row.unit)} (n=${row.baseline.n})`,
    `${formatValue(row.candidate.median, row.unit)} (n=${row.candidate.n})`,
    `${formatRatio(row.ratio)}${ci}`,
    formatP(row.adjustedP),
    couldDetect(row),
    // measured with other parameters: a different question, shown but never tested
    row.parametersDiffer ? 'parameters differ' : row.verdict,
  ];
}

/**
 * The row's minimum detectable effect ("≥ 18.0 %"), or, when compareRuns found that no
 * difference could be significant at these sample sizes, that note shortened ("none at n = 3 vs
 * 3").
 */
function couldDetect(row: Extract<CompareRow, { kind: 'metric' }>): string {
  if (row.detectable !== null) return formatDetectable(row.detectable);
  const tooFew = row.notes
    .map((n) => /^(\d+) against (\d+) values cannot be significant/.exec(n))
    .find((m) => m);
  return tooFew ? `none at n = ${tooFew[1]} vs ${tooFew[2]}` : MISSING;
}

/**
 * The headline of a report: the two sides, the verdict counts of the rows it compares (rows apart,
 * see apartRows, are counted apart), and every warning `runtime-bench compare` gives (its notes:
 * different runs, different host classes, …).
 */
export function compareHeadline(report: CompareReport, apart: Record<number, string> = {}): string[] {
  const side = (s: CompareReport['baseline']) =>
    `${s.label} — run ${s.runId} (${s.targets.map((t) => `${t.id}: ${t.cri} · ${t.oci}`).join('; ')})`;
  const counted = report.rows.filter((_, i) => apart[i] === undefined);
  const worse = counted.filter((r) => r.verdict === 'worse').length;
  const better = counted.filter((r) => r.verdict === 'better').length;
  const apartCount = report.rows.length - counted.length;
  return [
    `baseline: ${side(report.baseline)}`,
    `candidate: ${side(report.candidate)}`,
    `${worse} worse, ${better} better, ${counted.length - worse - better} without a significant difference or data${apartCount > 0 ? `, ${apartCount} not compared (a limit not enforced)` : ''}; ratio = candidate / baseline median`,
    ...report.notes.map((n) => `warning: ${n}`),
  ];
}

/** The whole report as the page shows it: headline, warnings, table (server and browser alike). */
export function compareRows(report: CompareReport, apart: Record<number, string> = {}): string[][] {
  const index = new Map(report.rows.map((r, i) => [r, i]));
  return sortedRows(report).map((r) => compareCells(r, apart[index.get(r)!]));
}

/** A run as the compare page's client sees it: enough to pick a pair and fetch the two files. */
export interface CompareRunRef {
  runId: string;
  file: string;
  startedAt: string;
  hostClassId: string;
  synthetic: boolean;
  /** [target id, "containerd 2.1.9 · runc 1.3.6"] */
  targets: [string, string][];
  /**
   * Per target id with results, the lineage it continues (lineage.ts: what it measured, whatever
   * its name), once the index is built; absent, a target is its own lineage.
   */
  lineage?: Record<string, string>;
}

/** One pre-rendered pair. */
export interface ComparePair {
  slug: string;
  title: string;
  hostClassId: string;
  baseline: { runId: string; target?: string };
  candidate: { runId: string; target?: string; renamedFrom?: Record<string, string> };
}

/**
 * The pairs worth pre-rendering per host class: the newest run against the newest one that started
 * before it with a target of the same lineage (targets paired by id, a renamed one with its former
 * id), and, inside the newest run,
 * every target against the run's runc target (or its first target).
 */
export function commonPairs(runs: readonly CompareRunRef[]): ComparePair[] {
  const byHost = new Map<string, CompareRunRef[]>();
  for (const r of runs) {
    const list = byHost.get(r.hostClassId);
    if (list) list.push(r);
    else byHost.set(r.hostClassId, [r]);
  }
  const pairs: ComparePair[] = [];
  const slug = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-|-$/g, '');
  for (const [host, list] of byHost) {
    const sorted = [...list].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
    const latest = sorted.at(-1)!;
    // The night before is the newest run that started earlier and shares a target with it — by
    // lineage, so that a target renamed since keeps its pair: a cluster run writes one file per
    // node with one start time (two nodes of one run are not two nights), and a host class may hold
    // CRI-level and cluster runs, which share no target.
    const ids = new Set(latest.targets.map(([id]) => id));
    const lineageOf = (r: CompareRunRef, id: string) => r.lineage?.[id] ?? id;
    const lineages = new Map([...ids].map((id) => [lineageOf(latest, id), id]));
    const previous = sorted.findLast(
      (r) =>
        Date.parse(r.startedAt) < Date.parse(latest.startedAt) &&
        r.targets.some(([id]) => lineages.has(lineageOf(r, id))),
    );
    if (previous) {
      // targets of the newest run that continue one of the previous run's under another id
      const renamedFrom: Record<string, string> = {};
      for (const [id] of previous.targets) {
        const now = lineages.get(lineageOf(previous, id));
        if (now !== undefined && now !== id && !ids.has(id) && !previous.targets.some(([x]) => x === now))
          renamedFrom[now] = id;
      }
      pairs.push({
        slug: `${host}/latest-vs-previous`,
        title: `Last night vs the night before (${previous.runId} → ${latest.runId})`,
        hostClassId: host,
        baseline: { runId: previous.runId },
        candidate: {
          runId: latest.runId,
          ...(Object.keys(renamedFrom).length > 0 ? { renamedFrom } : {}),
        },
      });
    }
    const base = [...ids].find((id) => /\/runc$/.test(id)) ?? [...ids][0];
    for (const id of ids) {
      if (id === base || base === undefined) continue;
      pairs.push({
        slug: `${host}/${slug(base)}-vs-${slug(id)}`,
        title: `${base} vs ${id} in ${latest.runId}`,
        hostClassId: host,
        baseline: { runId: latest.runId, target: base },
        candidate: { runId: latest.runId, target: id },
      });
    }
  }
  return pairs;
}

/**
 * The pair the compare form starts with: the newest run, against the newest earlier run of its
 * host class that shares a target id with it (so the first comparison has something in common),
 * else any earlier run of its host class, else the next newest run. `runs` newest first.
 */
export function defaultPair(runs: readonly CompareRunRef[]): { a: string; b: string } | null {
  const [b, ...rest] = runs;
  if (!b) return null;
  const ids = new Set(b.targets.map(([id]) => id));
  const sameHost = rest.filter((r) => r.hostClassId === b.hostClassId && r.startedAt !== b.startedAt);
  const a = sameHost.find((r) => r.targets.some(([id]) => ids.has(id))) ?? sameHost[0] ?? rest[0] ?? b;
  return { a: a.runId, b: b.runId };
}
