// The home page: the nightly status of each host class — its newest run, what the regression
// gate of `runtime-bench check` says about it, and why rows got no verdict. The gate's report is
// used as it is (rows pass through unchanged), so fields the gate gains — change points, the
// versions that changed, minimum detectable effects — reach the page by adding a column to
// STATUS_COLUMNS in the page, not by changing this module. Pure.
import type { GateReport, GateRow } from '@runtime-bench/runner/compare';
import { hostClassOf } from '@runtime-bench/schemas';
import type { LoadedRun } from '../load.ts';
import { isSynthetic } from '../site-index.ts';
import { slugify } from '../slug.ts';

/** The gate as the site uses it: a replay over a history, reporting on one run of it. */
export type StatusGate = (history: readonly LoadedRun[]) => (current: LoadedRun) => GateReport;

/** How many runs before the newest one the gate sees (its window is 10 by default, plus "ongoing"). */
export const STATUS_HISTORY = 30;

export interface ReasonCount {
  reason: string;
  count: number;
}

export interface HostStatus {
  hostClassId: string;
  hostClass: string;
  synthetic: boolean;
  runs: number;
  latest: { runId: string; file: string; startedAt: string; status: string; incompleteReason?: string };
  report: GateReport;
  regressions: GateRow[];
  ongoing: GateRow[];
  improvements: GateRow[];
  /** rows without a baseline, grouped by why */
  noBaseline: ReasonCount[];
  /** rows with a baseline too short for a verdict, grouped by why */
  insufficient: ReasonCount[];
}

function group(reasons: string[]): ReasonCount[] {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
}

/** Why one row of the report has no baseline, in words an operator acts on. */
export function noBaselineReason(report: GateReport, row: GateRow): string {
  if (report.history.comparable === 0)
    return report.history.otherHostClass > 0
      ? `first run of this host class (${report.history.otherHostClass} run(s) of other host classes are not comparable)`
      : 'first run: no earlier run at all';
  const target = report.targets.find((t) => t.id === row.target);
  if (target && target.baselineVersions.length === 0)
    return `target ${row.target} is new: no earlier run of this host class has it`;
  if (row.kind === 'status') return row.notes.at(-1) ?? 'not ok in the baseline window';
  return 'this benchmark was not measured (ok) in the baseline window';
}

function insufficientReason(row: GateRow): string {
  const note = row.notes.find((n) => n.startsWith('only '));
  if (note) return note;
  if (row.kind === 'status' && row.current === 'interrupted') return 'the run was interrupted';
  return row.notes[0] ?? 'too little data for a test';
}

/**
 * The status of each host class, newest run first. `loaded` is sorted by start time; each host
 * class's newest run is checked against the STATUS_HISTORY runs of that host class before it.
 */
export function nightlyStatus(loaded: readonly LoadedRun[], gate: StatusGate): HostStatus[] {
  const byHost = new Map<string, { label: string; runs: LoadedRun[] }>();
  for (const l of loaded) {
    const label = hostClassOf(l.run.host);
    const id = slugify(label);
    const entry = byHost.get(id) ?? { label, runs: [] };
    entry.runs.push(l);
    byHost.set(id, entry);
  }
  const out: HostStatus[] = [];
  for (const [hostClassId, { label, runs }] of byHost) {
    const latest = runs.at(-1)!;
    const history = runs.slice(-(STATUS_HISTORY + 1));
    const report = gate(history)(latest);
    const by = (v: string) => report.rows.filter((r) => r.verdict === v);
    out.push({
      hostClassId,
      hostClass: label,
      synthetic: runs.every((r) => isSynthetic(r.run)),
      runs: runs.length,
      latest: {
        runId: latest.run.runId,
        file: latest.file,
        startedAt: latest.run.startedAt,
        status: latest.run.status,
        ...(latest.run.incompleteReason ? { incompleteReason: latest.run.incompleteReason } : {}),
      },
      report,
      regressions: by('regression'),
      ongoing: by('ongoing regression'),
      improvements: by('improvement'),
      noBaseline: group(by('no baseline').map((r) => noBaselineReason(report, r))),
      insufficient: group(by('insufficient data').map(insufficientReason)),
    });
  }
  return out.sort((a, b) => Date.parse(b.latest.startedAt) - Date.parse(a.latest.startedAt));
}
