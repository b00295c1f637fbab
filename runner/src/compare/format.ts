import type { CompareReport, CompareRow } from './compare.ts';
import type { GateChangePoint, GateCoverage, GateReport, GateRow } from './gate/index.ts';
import { overheadLines } from '../overhead/engine-format.ts';
import {
  escapeMarkdown,
  formatDetectable,
  formatChange,
  formatP,
  formatPercent,
  formatValue,
  markdownTable,
  sanitizeTerminal,
  terminalTable,
} from '../format/index.ts';
import { bisectHints } from './bisect-offers.ts';
import type { VersionChangeReport } from './version-change.ts';
import {
  versionChangeCounts,
  versionChangeMarkdown,
  versionChangeTerminal,
  type VersionChangeCounts,
} from './version-change-format.ts';

/**
 * What `check` prints: the gate's report over the nights, and the side-by-side verdicts of the
 * pairs the current run measured (absent in reports of older tools).
 */
export type CheckReport = GateReport & {
  versionChanges?: VersionChangeReport[];
  versionChangeCounts?: VersionChangeCounts;
};

/** The check report with its side-by-side verdicts and their counts. */
export function withVersionChanges(report: GateReport, changes: VersionChangeReport[]): CheckReport {
  return { ...report, versionChanges: changes, versionChangeCounts: versionChangeCounts(changes) };
}

export type OutputFormat = 'table' | 'markdown' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'markdown', 'json'];

/** " [+8.1 %, +16 %]": an interval of changes, "" without one. */
export function formatInterval(lower: number | null, upper: number | null): string {
  return lower === null || upper === null ? '' : ` [${formatChange(lower)}, ${formatChange(upper)}]`;
}

function formatRate(c: { failed: number; attempts: number; rate: number | null }): string {
  return c.rate === null ? '–' : `${c.failed}/${c.attempts} (${formatPercent(c.rate)})`;
}

// ---- compare ------------------------------------------------------------------------------

const COMPARE_HEADER = [
  'benchmark',
  'target',
  'metric',
  'baseline',
  'candidate',
  'change [CI]',
  'p (Holm)',
  'could detect',
  'verdict',
];

function compareCells(row: CompareRow): string[] {
  const target =
    row.baselineTarget === row.candidateTarget
      ? row.baselineTarget
      : `${row.baselineTarget} → ${row.candidateTarget}`;
  if (row.kind === 'status')
    return [row.benchmark, target, 'status', row.baseline, row.candidate, '', '', '', row.verdict];
  if (row.kind === 'error-rate') {
    const change =
      row.baseline.rate === null || row.candidate.rate === null
        ? '–'
        : `${((row.candidate.rate - row.baseline.rate) * 100).toFixed(1)} pp`;
    return [
      row.benchmark,
      target,
      'error rate',
      formatRate(row.baseline),
      formatRate(row.candidate),
      change,
      formatP(row.adjustedP),
      '',
      row.verdict,
    ];
  }
  return [
    row.benchmark,
    target,
    `${row.metric} (${row.direction === 'lower' ? '↓' : '↑'} better)`,
    `${formatValue(row.baseline.median, row.unit)} (n=${row.baseline.n})`,
    `${formatValue(row.candidate.median, row.unit)} (n=${row.candidate.n})`,
    `${formatChange(row.ratio === null ? null : row.ratio - 1)}${formatInterval(
      row.ratioLower === null ? null : row.ratioLower - 1,
      row.ratioUpper === null ? null : row.ratioUpper - 1,
    )}`,
    formatP(row.adjustedP),
    formatDetectable(row.detectable),
    row.verdict,
  ];
}

function compareHeadline(report: CompareReport): string[] {
  const side = (s: CompareReport['baseline']): string =>
    `${s.label} (run ${s.runId}; ${s.targets.map((t) => `${t.id}: ${t.oci}`).join(', ')})`;
  const worse = report.rows.filter((r) => r.verdict === 'worse').length;
  const better = report.rows.filter((r) => r.verdict === 'better').length;
  return [
    `baseline:  ${side(report.baseline)}`,
    `candidate: ${side(report.candidate)}`,
    `medians, change = candidate / baseline - 1 with ${report.confidence * 100} % bootstrap CI; Mann-Whitney p, Holm-adjusted over ${
      report.rows.filter((r) => r.adjustedP !== null).length
    } tests; alpha ${report.alpha}`,
    `${worse} worse, ${better} better, ${report.rows.length - worse - better} without a significant difference or data`,
  ];
}

/** Renders a compare report as a plain table, Markdown or JSON. */
export function renderCompare(report: CompareReport, format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const rows = report.rows.map(compareCells);
  const extra = [
    ...report.onlyInBaseline.map((k) => `only in baseline: ${k}`),
    ...report.onlyInCandidate.map((k) => `only in candidate: ${k}`),
    ...report.rows.flatMap((r) =>
      r.notes.map((n) => `${r.benchmark} · ${r.kind === 'metric' ? r.metric : r.kind}: ${n}`),
    ),
    ...report.notes.map((n) => `note: ${n}`),
    ...overheadLines(report.engineOverhead, report.confidence),
  ];
  // One run's engine overhead alone: no pair was tested, so no table and no verdict counts.
  const head =
    report.rows.length === 0 && report.engineOverhead.length > 0
      ? [`run: ${report.baseline.label} (run ${report.baseline.runId})`]
      : compareHeadline(report);
  const table = (render: typeof terminalTable): string[] =>
    report.rows.length === 0 && report.engineOverhead.length > 0 ? [] : ['', render(COMPARE_HEADER, rows)];
  if (format === 'markdown')
    return `${[
      '### runtime-bench compare',
      '',
      ...head.map((l) => `- ${escapeMarkdown(l)}`),
      ...table(markdownTable),
      ...(extra.length ? ['', ...extra.map((l) => `- ${escapeMarkdown(l)}`)] : []),
    ].join('\n')}\n`;
  const safe = (lines: string[]) => lines.map((l) => sanitizeTerminal(l));
  return `${[...safe(head), ...table(terminalTable), ...(extra.length ? ['', ...safe(extra)] : [])].join('\n')}\n`;
}

// ---- check --------------------------------------------------------------------------------

const CHECK_HEADER = [
  'benchmark',
  'target',
  'metric',
  'baseline',
  'current',
  'change [CI]',
  'raw change',
  'night factor',
  'threshold',
  'p (Holm)',
  'could detect',
  'verdict',
  'change point',
];

function checkCells(row: GateRow): string[] {
  if (row.kind === 'status')
    return [
      row.benchmark,
      row.target,
      'status',
      `ok in ${row.okInWindow}/${row.baselineRuns.length} runs`,
      row.current,
      '',
      '',
      '',
      '',
      '',
      '',
      row.verdict,
      '',
    ];
  if (row.kind === 'error-rate')
    return [
      row.benchmark,
      row.target,
      'error rate',
      formatRate(row.baseline),
      formatRate(row.current),
      row.baseline.rate === null || row.current.rate === null
        ? '–'
        : `${((row.current.rate - row.baseline.rate) * 100).toFixed(1)} pp`,
      '',
      '',
      `${(row.threshold * 100).toFixed(1)} pp`,
      formatP(row.adjustedP),
      '',
      row.verdict,
      '',
    ];
  return [
    row.benchmark,
    row.target,
    `${row.metric} (${row.direction === 'lower' ? '↓' : '↑'} better)`,
    `${formatValue(row.baseline.level, row.unit)} (${row.baseline.runs} runs)`,
    `${formatValue(row.current.median, row.unit)} (n=${row.current.n})`,
    `${formatChange(row.change)}${formatInterval(row.changeLower, row.changeUpper)}`,
    formatChange(row.rawChange ?? null),
    formatNightFactor(row),
    `${(row.threshold * 100).toFixed(1)} %`,
    formatP(row.adjustedP),
    formatDetectable(row.detectable),
    row.verdict,
    formatChangePoint(row.changePoint),
  ];
}

/**
 * "−8.0 % (own)", "+1.2 % (controls: containerd/crun)", "−0.4 % (reference: containerd/runc-1.2.6)", or "none" when no factor was removed
 * (reports of earlier versions carry no source: "").
 */
export function formatNightFactor(row: Extract<GateRow, { kind: 'metric' }>): string {
  if (row.nightFactor === null) return row.factorSource === undefined ? '' : 'none';
  const named = (row.factorControls ?? []).join(', ');
  const source =
    row.factorSource === 'controls'
      ? `controls: ${named}`
      : row.factorSource === 'reference'
        ? `reference: ${named}`
        : 'own';
  return `${formatChange(row.nightFactor)} (${source})`;
}

/** "+12 % [+8.1 %, +16 %] at 20261121T090317Z-de04a91c (runc 1.1.5 → 1.3.6)" */
export function formatChangePoint(cp: GateChangePoint | null): string {
  if (cp === null) return '';
  const versions = cp.versionChanges.length ? ` (${cp.versionChanges.join(', ')})` : '';
  return `${formatChange(cp.step)}${formatInterval(cp.stepLower, cp.stepUpper)} at ${cp.runId}${versions}`;
}

/** "160 rows not checked: no earlier run of this host class" lines, one per reason. */
export function coverageLines(coverage: GateCoverage): string[] {
  return [
    `${coverage.checked} of ${coverage.rows} rows checked`,
    ...coverage.notChecked.map((c) => `${c.rows} row(s) not checked: ${c.reason}`),
  ];
}

function checkHeadline(report: GateReport): string[] {
  const c = report.counts;
  const h = report.history;
  return [
    `current: ${report.current.label} (run ${report.current.runId}, ${report.current.startedAt})`,
    `host class: ${report.current.hostClass}`,
    `history: ${h.files} file(s), ${h.comparable} comparable (${h.otherHostClass} other host class, ${h.notBefore} not earlier, ${h.sameRun} same run); window ${report.options.window} runs; alpha ${report.options.alpha} (Holm)`,
    ...report.targets.map(
      (t) =>
        `target ${t.id}: ${t.versions}${
          t.baselineVersions.length &&
          !(t.baselineVersions.length === 1 && t.baselineVersions[0] === t.versions)
            ? ` (baseline: ${t.baselineVersions.join('; ')})`
            : ''
        }`,
    ),
    ...report.resetsApplied.map((r) => `baseline reset from ${r.from}: ${r.reason}`),
    ...coverageLines(report.coverage),
    `${c.regression} new regression(s), ${c.ongoing} ongoing, ${c.improvement} improvement(s), ${c.ok} ok, ${c.noBaseline} without baseline, ${c.insufficient} with insufficient data`,
  ];
}

/** Renders a check report as a plain table, Markdown (flagged rows first, all rows folded) or JSON. */
export function renderCheck(report: CheckReport, format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const notes = report.rows.flatMap((r) =>
    r.notes.map((n) => `${r.benchmark} · ${r.target} · ${r.kind === 'metric' ? r.metric : r.kind}: ${n}`),
  );
  const uniqueNotes = [...new Set(notes)];
  const hints = bisectHints(report);
  if (format === 'markdown') {
    const flagged = report.rows.filter(
      (r) => r.verdict === 'regression' || r.verdict === 'ongoing regression' || r.verdict === 'improvement',
    );
    return `${[
      '### runtime-bench check',
      '',
      ...checkHeadline(report).map((l) => `- ${escapeMarkdown(l)}`),
      '',
      ...(flagged.length
        ? [markdownTable(CHECK_HEADER, flagged.map(checkCells)), '']
        : ['No regression or improvement beyond the thresholds.', '']),
      ...(hints.length ? ['To find the release and commit:', '', '```sh', ...hints, '```', ''] : []),
      ...versionChangeMarkdown(report.versionChanges ?? []),
      '<details><summary>All metrics</summary>',
      '',
      markdownTable(CHECK_HEADER, report.rows.map(checkCells)),
      ...(uniqueNotes.length ? ['', ...uniqueNotes.map((n) => `- ${escapeMarkdown(n)}`)] : []),
      '',
      '</details>',
    ].join('\n')}\n`;
  }
  const safe = (lines: string[]) => lines.map((l) => sanitizeTerminal(l));
  return `${[...safe(checkHeadline(report)), '', terminalTable(CHECK_HEADER, report.rows.map(checkCells)), ...(uniqueNotes.length ? ['', ...safe(uniqueNotes)] : []), ...(hints.length ? ['', 'to find the release and commit:', ...safe(hints.map((h) => `  ${h}`))] : []), ...versionChangeTerminal(report.versionChanges ?? [])].join('\n')}\n`;
}
