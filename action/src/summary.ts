// The job summary: one Markdown table per benchmark (median, spread, errors, status per target ×
// metric) and annotations for what failed. Building rows is pure; `writeSummary` is the only part
// that talks to the actions toolkit.
import * as core from '@actions/core';
import { escapeHtml, escapeMarkdown, formatValue, markdownTable } from '@runtime-bench/runner/format';
import type { RunResult } from '@runtime-bench/schemas';
import type { CheckLines } from './regressions.ts';
import { timingsMarkdown, type Timing } from './timings.ts';

export interface BenchmarkTable {
  benchmark: string;
  header: string[];
  rows: string[][];
}

export interface Annotation {
  level: 'error' | 'warning';
  title: string;
  message: string;
}

/** One table per benchmark, rows per target × metric, in the order of the result file. */
export function benchmarkTables(result: RunResult): BenchmarkTable[] {
  const header = [
    'target',
    'handler',
    'metric',
    'median',
    'p90',
    'spread (IQR-free: min–max)',
    'n',
    'errors',
    'status',
  ];
  const tables = new Map<string, BenchmarkTable>();
  const targets = new Map(result.targets.map((t) => [t.id, t]));
  for (const r of result.results) {
    let table = tables.get(r.benchmark);
    if (!table) {
      table = { benchmark: r.benchmark, header, rows: [] };
      tables.set(r.benchmark, table);
    }
    const target = targets.get(r.target);
    const handler = target ? `${target.handler} (${target.oci.name} ${target.oci.version})` : '';
    const status = r.status === 'ok' ? 'ok' : `${r.status}${r.reason ? `: ${r.reason}` : ''}`;
    if (r.metrics.length === 0) {
      table.rows.push([r.target, handler, '—', '—', '—', '—', '0', String(r.failedAttempts), status]);
      continue;
    }
    for (const m of r.metrics) {
      const s = m.summary;
      table.rows.push([
        r.target,
        handler,
        `${m.name} (${m.unit}, ${m.direction} is better)`,
        s ? formatValue(s.median, m.unit) : '—',
        s ? formatValue(s.p90, m.unit) : '—',
        s ? `${formatValue(s.min, m.unit)}–${formatValue(s.max, m.unit)}` : '—',
        String(s?.n ?? 0),
        m.errors.count === 0 ? '0' : `${m.errors.count}: ${m.errors.messages[0] ?? ''}`,
        status,
      ]);
    }
  }
  return [...tables.values()];
}

/** Failed or incomplete runs become error annotations; invalid/unsupported benchmarks warnings. */
export function annotationsFor(result: RunResult, file: string): Annotation[] {
  const out: Annotation[] = [];
  if (result.status === 'incomplete') {
    out.push({
      level: 'error',
      title: `runtime-bench run ${result.runId} incomplete`,
      message: `${file}: ${result.incompleteReason ?? 'no reason given'}`,
    });
  }
  for (const r of result.results) {
    if (r.status === 'ok') continue;
    const level = r.status === 'failed' || r.status === 'interrupted' ? 'error' : 'warning';
    out.push({
      level,
      title: `${r.benchmark} on ${r.target}: ${r.status}`,
      message: r.reason ?? `${r.failedAttempts} of ${r.attempts} attempts failed`,
    });
  }
  return out;
}

const NOT_CHECKED = 'No baseline given: this run was not checked for regressions.';
const NO_REGRESSIONS = 'No new regressions against the baseline.';

/**
 * The gate's part of the summary: how many rows it could check and why not the others (so "no
 * regressions" never hides "nothing was checked"), then new and ongoing regressions with their
 * change points and the component versions that changed there. `check` is null without a baseline.
 */
function checkSections(check: CheckLines | null): { heading: string; lines: string[]; empty?: string }[] {
  if (check === null) return [];
  return [
    { heading: 'Regression check', lines: check.coverage },
    { heading: 'New regressions', lines: check.regressions, empty: NO_REGRESSIONS },
    { heading: 'Ongoing regressions', lines: check.ongoing },
  ].filter((s) => s.lines.length > 0 || s.empty);
}

/** Markdown of the whole summary (used for the summary-path file and the step summary). */
export function summaryMarkdown(
  results: { file: string; result: RunResult }[],
  check: CheckLines | null,
  timings: Timing[] = [],
): string {
  const lines: string[] = ['# runtime-bench results', ''];
  for (const { file, result } of results) {
    lines.push(
      escapeMarkdown(
        `Run ${result.runId} (${result.status}) on ${result.host.cpuModel}, ${result.host.cpus} CPU, Linux ${result.host.kernel} — ${file}`,
      ),
      '',
    );
    for (const t of benchmarkTables(result)) {
      lines.push(`## ${t.benchmark}`, '', markdownTable(t.header, t.rows), '');
    }
  }
  if (check === null) lines.push(NOT_CHECKED, '');
  for (const s of checkSections(check))
    lines.push(
      `## ${s.heading}`,
      '',
      ...(s.lines.length > 0 ? s.lines.map((l) => `- ${escapeMarkdown(l)}`) : [s.empty!]),
      '',
    );
  if (timings.length > 0) lines.push(timingsMarkdown(timings));
  return lines.join('\n');
}

/** Writes the step summary through the toolkit (GITHUB_STEP_SUMMARY) and emits annotations. */
export async function writeSummary(
  results: { file: string; result: RunResult }[],
  check: CheckLines | null,
  timings: Timing[] = [],
): Promise<void> {
  core.summary.addHeading('runtime-bench results', 1);
  for (const { file, result } of results) {
    // The toolkit writes table cells and raw text into the summary's HTML as they are: escape.
    core.summary.addRaw(
      escapeHtml(
        `Run ${result.runId} (${result.status}), ${result.host.cpuModel}, ${result.host.cpus} CPU, Linux ${result.host.kernel}: ${file}`,
      ),
      true,
    );
    for (const t of benchmarkTables(result)) {
      core.summary.addHeading(t.benchmark, 2);
      const rows: Parameters<typeof core.summary.addTable>[0] = [
        t.header.map((h) => ({ data: escapeHtml(h), header: true })),
        ...t.rows.map((r) => r.map(escapeHtml)),
      ];
      core.summary.addTable(rows);
    }
    for (const a of annotationsFor(result, file))
      (a.level === 'error' ? core.error : core.warning)(a.message, { title: a.title });
  }
  if (check === null) core.summary.addRaw(NOT_CHECKED, true);
  for (const s of checkSections(check)) {
    core.summary.addHeading(s.heading, 2);
    if (s.lines.length > 0) core.summary.addList(s.lines.map(escapeHtml));
    else core.summary.addRaw(s.empty!, true);
  }
  for (const r of check?.regressions ?? []) core.error(r, { title: 'runtime-bench regression' });
  if (timings.length > 0) core.summary.addRaw(`\n${escapeHtml(timingsMarkdown(timings))}`, true);
  await core.summary.write();
}
