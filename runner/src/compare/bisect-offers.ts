// The bisections a check offers: a regression that came with a new version of a component
// `bisect` can build is worth its release and commit. Two findings carry such a version change:
// a gate row whose change point across nights came with one ("runc 1.1.5 → 1.3.6"), and a
// declared side-by-side pair the night decided as a regression (the previous version measured
// beside the new one). One bisection per version change: a commit that slows `runc init` slows
// RunPodSandbox, StartContainer and the phases holding them, and one search finds it; the metric
// searched is the one whose regression is surest (the largest lower bound of its change).
import { bisectCommand, BISECTABLE, type BisectRequest } from '../bisect-request.ts';
import type { GateReport } from './gate/index.ts';
import { splitMetricKey, type VersionChangeReport } from './version-change.ts';

/** What the offers are read from: the gate's rows and, when check decided them, the night's pairs. */
export type OfferSource = GateReport & { versionChanges?: readonly VersionChangeReport[] };

const bisectable = (component: string): boolean => (BISECTABLE as readonly string[]).includes(component);

/** An offer with how sure its regression is: the lower bound of its change (null: unknown). */
interface Offer {
  request: BisectRequest;
  lower: number | null;
}

function gateOffers(report: GateReport): Offer[] {
  const out: Offer[] = [];
  for (const row of report.rows) {
    if (row.kind !== 'metric' || (row.verdict !== 'regression' && row.verdict !== 'ongoing regression'))
      continue;
    if (row.metric.startsWith('(')) continue; // the night factor is no metric a run can measure
    for (const change of row.changePoint?.versionChanges ?? []) {
      const m = /^(\S+) (\S+) → (\S+)$/.exec(change);
      if (!m || !bisectable(m[1]!) || m[2] === '(none)' || m[3] === '(none)') continue;
      out.push({
        request: {
          component: m[1]!,
          good: m[2]!,
          bad: m[3]!,
          benchmark: row.benchmark,
          metric: row.metric,
          direction: 'slower',
        },
        lower: row.changeLower,
      });
    }
  }
  return out;
}

/**
 * A declared pair's regressions: the night's own version change, measured side by side. An A/A
 * pair (one version twice) or a pair of another component (containerd) offers nothing.
 */
function versionChangeOffers(changes: readonly VersionChangeReport[]): Offer[] {
  const out: Offer[] = [];
  for (const change of changes) {
    if (!change.declared || change.component !== 'oci' || !bisectable(change.name)) continue;
    if (change.from === change.to) continue;
    for (const m of change.decision?.metrics ?? []) {
      if (m.verdict !== 'regression') continue;
      const key = splitMetricKey(m.metric);
      if (key.benchmark === '') continue;
      out.push({
        request: { component: change.name, good: change.from, bad: change.to, ...key, direction: 'slower' },
        lower: m.lower,
      });
    }
  }
  return out;
}

/**
 * For each version change of a component `bisect` can build that came with a regression, the
 * bisection that finds its release and commit: one per version change, on the metric whose
 * regression is surest; a side-by-side finding before one across nights (it measured the change
 * itself).
 */
export function bisectRequests(report: OfferSource): BisectRequest[] {
  const byChange = new Map<string, Offer>();
  const surer = (a: Offer, b: Offer) => (a.lower ?? -Infinity) > (b.lower ?? -Infinity);
  for (const offers of [versionChangeOffers(report.versionChanges ?? []), gateOffers(report)]) {
    const round = new Map<string, Offer>();
    for (const o of offers) {
      const change = `${o.request.component} ${o.request.good} → ${o.request.bad}`;
      if (byChange.has(change)) continue;
      const held = round.get(change);
      if (!held || surer(o, held)) round.set(change, o);
    }
    for (const [change, o] of round) byChange.set(change, o);
  }
  return [...byChange.values()].map((o) => o.request);
}

/** The exact commands of bisectRequests, as `check` prints them. */
export function bisectHints(report: OfferSource): string[] {
  return bisectRequests(report).map(bisectCommand);
}
