// The home page: the nightly status of each host class — its newest run, what the regression
// gate of `runtime-bench check` says about it, and why rows got no verdict. The gate's report is
// used as it is (rows pass through unchanged; how many rows were checked and why the others were
// not is the report's own `coverage`, not counted again here), so fields the gate gains reach
// the page by adding a column to components/GateRows.astro, not by changing this module. Pure.
import type { GateReport, GateRow } from '@runtime-bench/runner/compare';
import { hostClassOf, type Target } from '@runtime-bench/schemas';
import { measuredIdentity } from '../lineage.ts';
import { comboRefOfTarget } from '../run-digest.ts';
import type { LoadedRun } from '../load.ts';
import { REGRESSION_HISTORY, REGRESSION_WINDOW, type Gate } from '../regressions.ts';
import { isSynthetic, runStatusOf } from '../site-index.ts';
import { slugify } from '../slug.ts';

/**
 * How many runs before the newest one the gate sees (its window is 10 by default, plus "ongoing"):
 * the history the Regressions page replays, so that both pages report the same on the newest run
 * and the build replays the gate once (compute-worker.ts).
 */
export const STATUS_HISTORY = REGRESSION_WINDOW + REGRESSION_HISTORY - 1;

export interface HostStatus {
  hostClassId: string;
  hostClass: string;
  synthetic: boolean;
  runs: number;
  latest: { runId: string; file: string; startedAt: string; status: string; incompleteReason?: string };
  report: GateReport;
  /** per target id of the newest run: its CRI and OCI runtime names (the row's own components) */
  components: Record<string, string[]>;
  /**
   * Targets of the newest run whose id no earlier run of the host class has, while earlier runs
   * measured the same CRI runtime, handler and OCI runtime under another id: a rename, which the
   * gate (matching its history by target id) sees as "no earlier run".
   */
  renamed: {
    target: string;
    formerIds: string[];
    runs: number;
    /** the gate's rows of this target on the newest run, and how many of them it checked */
    gateRows: number;
    gateChecked: number;
  }[];
  regressions: GateRow[];
  ongoing: GateRow[];
  improvements: GateRow[];
}

/**
 * The status of each host class, newest run first. `loaded` is sorted by start time; each host
 * class's newest run is checked against the STATUS_HISTORY runs of that host class before it.
 */
export function nightlyStatus(loaded: readonly LoadedRun[], gate: Gate): HostStatus[] {
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
        ...shownStatus(latest.run),
      },
      report,
      components: Object.fromEntries(latest.run.targets.map((t) => [t.id, [t.cri.name, t.oci.name]])),
      renamed: renamedTargets(runs).map((r) => {
        const own = report.rows.filter((row) => row.target === r.target);
        const checked = own.filter(
          (row) => row.verdict !== 'no baseline' && row.verdict !== 'insufficient data',
        );
        return { ...r, gateRows: own.length, gateChecked: checked.length };
      }),
      regressions: by('regression'),
      ongoing: by('ongoing regression'),
      improvements: by('improvement'),
    });
  }
  return out.sort((a, b) => Date.parse(b.latest.startedAt) - Date.parse(a.latest.startedAt));
}

const measured = (t: Target) => measuredIdentity({ ...comboRefOfTarget(t), id: t.id });

/** The newest run's targets that continue earlier runs' targets under another id (see HostStatus). */
function renamedTargets(runs: readonly LoadedRun[]): { target: string; formerIds: string[]; runs: number }[] {
  const latest = runs.at(-1)!;
  const earlier = runs.slice(0, -1);
  const out: { target: string; formerIds: string[]; runs: number }[] = [];
  for (const t of latest.run.targets) {
    if (earlier.some((l) => l.run.targets.some((o) => o.id === t.id))) continue;
    const identity = measured(t);
    const former = new Set<string>();
    let count = 0;
    for (const l of earlier) {
      const same = l.run.targets.filter((o) => measured(o) === identity);
      if (same.length === 0) continue;
      count++;
      for (const o of same) former.add(o.id);
    }
    if (count > 0) out.push({ target: t.id, formerIds: [...former].sort(), runs: count });
  }
  return out;
}

/** The run's status as the site states it (runStatusOf), in the shape of HostStatus.latest. */
function shownStatus(run: LoadedRun['run']): { status: string; incompleteReason?: string } {
  const { status, why } = runStatusOf(run);
  return { status, ...(why ? { incompleteReason: why } : {}) };
}
