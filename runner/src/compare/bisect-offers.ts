// The bisections a check offers: a regression that came with a new version of a component
// `bisect` can build is worth its release and commit. Two findings carry such a version change:
// a gate row whose change point across nights came with one ("runc 1.1.5 → 1.3.6"), and a
// declared side-by-side pair the night decided as a regression (the previous version measured
// beside the new one). Each bisection is offered once.
import { bisectCommand, BISECTABLE, type BisectRequest } from '../bisect-request.ts';
import type { GateReport } from './gate/index.ts';
import type { VersionChangeReport } from './version-change.ts';

/** What the offers are read from: the gate's rows and, when check decided them, the night's pairs. */
export type OfferSource = GateReport & { versionChanges?: readonly VersionChangeReport[] };

const bisectable = (component: string): boolean => (BISECTABLE as readonly string[]).includes(component);

/** A side-by-side metric key is `benchmark:metric` (version-change.ts). */
function splitKey(key: string): { benchmark: string; metric: string } | null {
  const at = key.indexOf(':');
  return at > 0 ? { benchmark: key.slice(0, at), metric: key.slice(at + 1) } : null;
}

function gateOffers(report: GateReport): BisectRequest[] {
  const out: BisectRequest[] = [];
  for (const row of report.rows) {
    if (row.kind !== 'metric' || (row.verdict !== 'regression' && row.verdict !== 'ongoing regression'))
      continue;
    if (row.metric.startsWith('(')) continue; // the night factor is no metric a run can measure
    for (const change of row.changePoint?.versionChanges ?? []) {
      const m = /^(\S+) (\S+) → (\S+)$/.exec(change);
      if (!m || !bisectable(m[1]!) || m[2] === '(none)' || m[3] === '(none)') continue;
      out.push({
        component: m[1]!,
        good: m[2]!,
        bad: m[3]!,
        benchmark: row.benchmark,
        metric: row.metric,
        direction: 'slower',
      });
    }
  }
  return out;
}

/**
 * A declared pair's regressions: the night's own version change, measured side by side. An A/A
 * pair (one version twice) or a pair of another component (containerd) offers nothing.
 */
function versionChangeOffers(changes: readonly VersionChangeReport[]): BisectRequest[] {
  const out: BisectRequest[] = [];
  for (const change of changes) {
    if (!change.declared || change.component !== 'oci' || !bisectable(change.name)) continue;
    if (change.from === change.to) continue;
    for (const m of change.decision?.metrics ?? []) {
      if (m.verdict !== 'regression') continue;
      const key = splitKey(m.metric);
      if (key === null) continue;
      out.push({ component: change.name, good: change.from, bad: change.to, ...key, direction: 'slower' });
    }
  }
  return out;
}

/**
 * For each regression that came with a new version of a component `bisect` can build, the
 * bisection that finds the release and commit (once each; side-by-side findings first, as they
 * name the version change itself).
 */
export function bisectRequests(report: OfferSource): BisectRequest[] {
  const requests = new Map<string, BisectRequest>();
  for (const r of [...versionChangeOffers(report.versionChanges ?? []), ...gateOffers(report)])
    if (!requests.has(bisectCommand(r))) requests.set(bisectCommand(r), r);
  return [...requests.values()];
}

/** The exact commands of bisectRequests, as `check` prints them. */
export function bisectHints(report: OfferSource): string[] {
  return bisectRequests(report).map(bisectCommand);
}
