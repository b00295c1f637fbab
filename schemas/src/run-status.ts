// A run's status: what the runner writes at the end of a run, what the schema holds a version-6
// file to, and how every reader (CLI, action summary, `data verify`, the site) states the status
// of an older file — one definition, so that no reader calls "complete" what another calls partial.

/** The status a run's results are written with: `partial` exists from schemaVersion 6. */
export const RUN_STATUSES = ['complete', 'partial', 'incomplete'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The first schemaVersion whose files say `partial` themselves. */
export const PARTIAL_STATUS_SINCE = 6;

/**
 * Benchmark statuses that make a finished run partial: `failed` alone — that benchmark × target
 * measured nothing. `invalid` does not: it measured (its samples are kept, and its error rate is
 * itself the finding the gate's error-rate row reads); `unsupported` is the runtime's answer to a
 * feature, and `interrupted` only happens in an incomplete run.
 */
const UNMEASURED = new Set(['failed']);

/** The benchmark × target results of a run that measured nothing, in result order. */
export function unmeasuredResults<R extends { benchmark: string; target: string; status: string }>(
  results: readonly R[],
): R[] {
  return results.filter((r) => UNMEASURED.has(r.status));
}

/** The status of a run that went to its end: partial when some benchmark × target measured nothing. */
export function finishedRunStatus(results: readonly { status: string }[]): 'complete' | 'partial' {
  return results.some((r) => UNMEASURED.has(r.status)) ? 'partial' : 'complete';
}

/**
 * A run's status as every reader states it. Files before schemaVersion 6 could only say
 * `complete` for a run that went to its end: one with an unmeasured benchmark × target is partial.
 * The file itself is never rewritten (data/ holds what was written).
 */
export function effectiveRunStatus(run: {
  schemaVersion: number;
  status: RunStatus;
  results: readonly { status: string }[];
}): RunStatus {
  if (run.status === 'complete' && run.schemaVersion < PARTIAL_STATUS_SINCE)
    return finishedRunStatus(run.results);
  return run.status;
}

/** Why a run is partial: "<benchmark> on <target>, … measured nothing". */
export function partialReason(
  results: readonly { benchmark: string; target: string; status: string }[],
): string {
  const unmeasured = unmeasuredResults(results).map((r) => `${r.benchmark} on ${r.target}`);
  return `${unmeasured.join(', ')} measured nothing`;
}
