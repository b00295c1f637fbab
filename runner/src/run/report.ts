import { partialReason, type RunResult } from '@runtime-bench/schemas';
import { engineCounterpart } from '../overhead/counterparts.ts';
import { overheadLines } from '../overhead/engine-format.ts';
import { engineOverhead } from '../overhead/engine-runs.ts';
import { runVerdict, verdictLines, verdictPairs } from '../compare/verdict.ts';
import { formatValue, sanitizeTerminal, terminalTable } from '../format/index.ts';

/** The end-of-run table: one row per benchmark × target × metric with median, spread, n and errors. */
export function summaryTable(result: RunResult): string {
  const rows: string[][] = [];
  for (const r of result.results) {
    for (const m of r.metrics) {
      const s = m.summary;
      rows.push([
        r.benchmark,
        r.target,
        m.name,
        formatValue(s?.median, m.unit),
        formatValue(s?.p90, m.unit),
        formatValue(s?.stdev, m.unit),
        String(s?.n ?? 0),
        String(m.errors.count),
        r.status === 'ok' ? 'ok' : `${r.status}`,
      ]);
    }
  }
  return terminalTable(
    ['benchmark', 'target', 'metric', 'median', 'p90', 'stdev', 'n', 'errors', 'status'],
    rows,
    {
      align: ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'],
    },
  );
}

/** The run's status for its last line: a partial run names what measured nothing. */
export function runStatusLine(result: Pick<RunResult, 'status' | 'results'>): string {
  return result.status === 'partial' ? `partial: ${partialReason(result.results)}` : result.status;
}

/** One line per result whose status is not ok, with its reason; safe to print on a terminal. */
export function problemLines(result: RunResult): string[] {
  return result.results
    .filter((r) => r.status !== 'ok')
    .map((r) =>
      sanitizeTerminal(`${r.benchmark} on ${r.target}: ${r.status}${r.reason ? ` — ${r.reason}` : ''}`),
    );
}

/**
 * What `run` prints at its end. A run of two or more targets ends with the verdict (each runtime
 * against runc, per benchmark family) and where the rest is; `table` adds the full table before
 * it. A run of one target has nothing to compare: its table. A run with engine and CRI-level
 * targets of one OCI runtime version adds each engine's overhead (one metric per benchmark). Then
 * the results that are not ok.
 */
export function endOfRunReport(result: RunResult, path: string, options: { table?: boolean } = {}): string[] {
  const pairs = verdictPairs(result);
  const lines: string[] = [];
  if (options.table || pairs.length === 0) lines.push(summaryTable(result), '');
  if (pairs.length > 0) {
    const first = pairs[0]!;
    lines.push(
      ...verdictLines(runVerdict(result)).map((l) => sanitizeTerminal(l)),
      '',
      sanitizeTerminal(
        `every metric of a pair: runtime-bench compare ${path} --baseline-target ${first.baseline} --target ${first.candidate}${
          options.table ? '' : '; every median: run with --table'
        }`,
      ),
    );
  }
  // A run with engine and CRI-level targets of one OCI runtime version: what each engine adds.
  const overhead = engineOverhead([result]).filter((r) =>
    engineCounterpart(r.engineBenchmark)?.headline.includes(r.metric),
  );
  if (overhead.length > 0)
    lines.push(
      '',
      ...overheadLines(overhead, 0.95).map((l) => sanitizeTerminal(l)),
      sanitizeTerminal(`every engine metric beside its CRI-level counterpart: runtime-bench compare ${path}`),
    );
  return [...lines, ...problemLines(result)];
}
