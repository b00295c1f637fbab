// The job summary: one Markdown table per benchmark (median, spread, errors, status per target ×
// metric) and annotations for what failed. Building rows is pure; `writeSummary` is the only part
// that talks to the actions toolkit, within GitHub's caps (step-summary.ts).
import * as core from '@actions/core';
import { escapeHtml, escapeMarkdown, formatValue, markdownTable } from '@runtime-bench/runner/format';
import { effectiveRunStatus, partialReason, type RunResult } from '@runtime-bench/schemas';
import type { BisectRequest } from '@runtime-bench/runner';
import type { CheckLines } from './regressions.ts';
import { bisectionFor, originLine, type OriginLine } from './regression-report.ts';
import { timingsMarkdown, type Timing } from './timings.ts';
import {
  ANNOTATIONS_PER_STEP,
  capLines,
  fitSummary,
  planAnnotations,
  type SummaryPart,
} from './step-summary.ts';
import type { RankedAnnotation } from './annotation.ts';

export interface BenchmarkTable {
  benchmark: string;
  header: string[];
  rows: string[][];
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

/**
 * How important an annotation is (lower first): an incomplete or partial run, a new regression, a
 * benchmark that failed or was interrupted; then the warnings: invalid (too many errors), unsupported.
 */
export const ANNOTATION_RANK = {
  incomplete: 0,
  partial: 0,
  regression: 1,
  failed: 2,
  interrupted: 2,
  invalid: 3,
  unsupported: 4,
} as const;

/**
 * Incomplete and partial runs (an older file's too: effectiveRunStatus) and failed benchmarks
 * become error annotations; invalid/unsupported benchmarks warnings.
 */
export function annotationsFor(result: RunResult, file: string): RankedAnnotation[] {
  const out: RankedAnnotation[] = [];
  const status = effectiveRunStatus(result);
  if (status !== 'complete') {
    out.push({
      rank: ANNOTATION_RANK[status],
      level: 'error',
      title: `runtime-bench run ${result.runId} ${status}`,
      message: `${file}: ${
        status === 'partial' ? partialReason(result.results) : (result.incompleteReason ?? 'no reason given')
      }`,
    });
  }
  for (const r of result.results) {
    if (r.status === 'ok') continue;
    const level = r.status === 'failed' || r.status === 'interrupted' ? 'error' : 'warning';
    out.push({
      rank: ANNOTATION_RANK[r.status],
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
  notChecked = NOT_CHECKED,
  bisections: readonly BisectRequest[] = [],
): string {
  const lines: string[] = ['# runtime-bench results', ''];
  for (const { file, result } of results) {
    lines.push(
      escapeMarkdown(
        `Run ${result.runId} (${effectiveRunStatus(result)}) on ${result.host.cpuModel}, ${result.host.cpus} CPU, Linux ${result.host.kernel} — ${file}`,
      ),
      '',
    );
    for (const t of benchmarkTables(result)) {
      lines.push(`## ${t.benchmark}`, '', markdownTable(t.header, t.rows), '');
    }
  }
  if (check === null) lines.push(escapeMarkdown(notChecked), '');
  for (const s of checkSections(check))
    lines.push(
      `## ${s.heading}`,
      '',
      ...(s.lines.length > 0 ? s.lines.map((l) => `- ${escapeMarkdown(l)}`) : [s.empty!]),
      '',
    );
  const origins = originLines(check, bisections);
  if (origins.length > 0)
    lines.push(
      `## ${ORIGINS_HEADING}`,
      '',
      ...origins.map(
        (o) =>
          `- ${escapeMarkdown(o.text)}${o.links.map((l) => ` — [${escapeMarkdown(l.label)}](${markdownUrl(l.url)})`).join('')}`,
      ),
      '',
    );
  if (timings.length > 0) lines.push(timingsMarkdown(timings));
  return lines.join('\n');
}

const ORIGINS_HEADING = 'Where the regressions came from';

/** A URL as a Markdown link target: its parentheses encoded, so that none ends the link early. */
const markdownUrl = (url: string): string => url.replace(/\(/g, '%28').replace(/\)/g, '%29');

/**
 * Per regression (new and ongoing): the version change it arrived with, its change and interval
 * and what they were measured on, the step, the bisection that follows, and the site page.
 * `bisections` are the bisections the bisect step will run (bisect-on-regression).
 */
function originLines(check: CheckLines | null, bisections: readonly BisectRequest[]): OriginLine[] {
  return (check?.entries ?? []).map((e) => originLine(e, bisectionFor(e, bisections)));
}

/** Lines of one list the step summary shows at most (a long list goes on in summary.md). */
const MAX_LIST_LINES = 200;

/**
 * The step summary as HTML parts: the runs and their tables (each table may be left out), the
 * regression check, the runner-side cost. Every text is escaped: the toolkit writes HTML as it is.
 */
export function stepSummaryParts(
  results: { file: string; result: RunResult }[],
  check: CheckLines | null,
  timings: Timing[] = [],
  notChecked = NOT_CHECKED,
  bisections: readonly BisectRequest[] = [],
): SummaryPart[] {
  const cell = (tag: 'th' | 'td', text: string): string => `<${tag}>${escapeHtml(text)}</${tag}>`;
  const parts: SummaryPart[] = [{ html: '<h1>runtime-bench results</h1>\n' }];
  for (const { file, result } of results) {
    parts.push({
      html: `${escapeHtml(
        `Run ${result.runId} (${result.status}), ${result.host.cpuModel}, ${result.host.cpus} CPU, Linux ${result.host.kernel}: ${file}`,
      )}\n`,
    });
    for (const t of benchmarkTables(result)) {
      const rows = [t.header.map((h) => cell('th', h)), ...t.rows.map((r) => r.map((c) => cell('td', c)))];
      parts.push({
        html: `<h2>${escapeHtml(t.benchmark)}</h2>\n<table>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</table>\n`,
        optional: t.benchmark,
      });
    }
  }
  if (check === null) parts.push({ html: `${escapeHtml(notChecked)}\n` });
  for (const s of checkSections(check)) {
    const list = capLines(s.lines, MAX_LIST_LINES);
    parts.push({
      html: `<h2>${escapeHtml(s.heading)}</h2>\n${
        list.length > 0 ? `<ul>${list.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` : s.empty!
      }\n`,
    });
  }
  const all = originLines(check, bisections);
  const origins =
    all.length <= MAX_LIST_LINES
      ? all
      : [
          ...all.slice(0, MAX_LIST_LINES - 1),
          {
            text: capLines(
              all.map((o) => o.text),
              MAX_LIST_LINES,
            ).at(-1)!,
            links: [],
          },
        ];
  if (origins.length > 0)
    parts.push({
      html: `<h2>${escapeHtml(ORIGINS_HEADING)}</h2>\n<ul>${origins
        .map(
          (o) =>
            `<li>${[escapeHtml(o.text), ...o.links.map((l) => `<a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a>`)].join(' — ')}</li>`,
        )
        .join('')}</ul>\n`,
    });
  if (timings.length > 0) parts.push({ html: `\n${escapeHtml(timingsMarkdown(timings))}\n` });
  return parts;
}

/**
 * Writes the step summary through the toolkit (GITHUB_STEP_SUMMARY), within GitHub's 1 MiB, and
 * emits the annotations most important first, within the 10 a step shows of each kind (one error
 * kept back for the step's own failure).
 */
export async function writeSummary(
  results: { file: string; result: RunResult }[],
  check: CheckLines | null,
  timings: Timing[] = [],
  notChecked = NOT_CHECKED,
  bisections: readonly BisectRequest[] = [],
): Promise<void> {
  core.summary.addRaw(fitSummary(stepSummaryParts(results, check, timings, notChecked, bisections)));
  const annotations: RankedAnnotation[] = [
    ...results.flatMap(({ file, result }) => annotationsFor(result, file)),
    ...(check?.regressions ?? []).map((r) => ({
      rank: ANNOTATION_RANK.regression,
      level: 'error' as const,
      title: 'runtime-bench regression',
      message: r,
    })),
  ];
  for (const a of planAnnotations(annotations, { error: 1 }, ANNOTATIONS_PER_STEP))
    (a.level === 'error' ? core.error : core.warning)(a.message, { title: a.title });
  await core.summary.write();
}
