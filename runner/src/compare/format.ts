import type { CompareReport, CompareRow } from './compare.ts';
import type { GateChangePoint, GateCoverage, GateReport, GateRow } from './gate.ts';

export type OutputFormat = 'table' | 'markdown' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'markdown', 'json'];

/** A value with 4 significant digits and its unit: "12.35 ms", "1843 events/s". */
export function formatValue(v: number | null, unit = ''): string {
  if (v === null) return '–';
  const s = Math.abs(v) >= 1000 ? v.toFixed(0) : String(Number(v.toPrecision(4)));
  return unit ? `${s} ${unit}` : s;
}

/**
 * A relative change given as a fraction (0.048, not the ratio 1.048) as a signed percentage:
 * "+4.8 %", "-0.35 %". A ratio r is shown as formatRelativeChange(r - 1).
 */
export function formatRelativeChange(change: number | null): string {
  if (change === null || !Number.isFinite(change)) return '–';
  const pct = change * 100;
  const digits = Math.abs(pct) < 1 ? 2 : 1;
  const s = pct.toFixed(digits);
  return `${pct >= 0 && !s.startsWith('-') ? '+' : ''}${s} %`;
}

/** A p-value with two significant digits, or "<0.0001". */
export function formatP(p: number | null): string {
  if (p === null) return '–';
  if (p < 0.0001) return '<0.0001';
  return String(Number(p.toPrecision(2)));
}

function formatInterval(lower: number | null, upper: number | null): string {
  return lower === null || upper === null
    ? ''
    : ` [${formatRelativeChange(lower)}, ${formatRelativeChange(upper)}]`;
}

function formatRate(c: { failed: number; attempts: number; rate: number | null }): string {
  return c.rate === null ? '–' : `${c.failed}/${c.attempts} (${(c.rate * 100).toFixed(1)} %)`;
}

/** Plain-text table with aligned columns. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Markdown table; pipes inside cells are escaped. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
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

/** "≥ 18 %": the minimum detectable effect of a row, or "–". */
function formatDetectable(detectable: number | null): string {
  return detectable === null ? '–' : `≥ ${formatRelativeChange(detectable).replace(/^\+/, '')}`;
}

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
    `${formatRelativeChange(row.ratio === null ? null : row.ratio - 1)}${formatInterval(
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
  ];
  if (format === 'markdown')
    return `${[
      '### runtime-bench compare',
      '',
      ...compareHeadline(report).map((l) => `- ${l}`),
      '',
      markdownTable(COMPARE_HEADER, rows),
      ...(extra.length ? ['', ...extra.map((l) => `- ${l}`)] : []),
    ].join('\n')}\n`;
  return `${[...compareHeadline(report), '', textTable(COMPARE_HEADER, rows), ...(extra.length ? ['', ...extra] : [])].join('\n')}\n`;
}

// ---- check --------------------------------------------------------------------------------

const CHECK_HEADER = [
  'benchmark',
  'target',
  'metric',
  'baseline',
  'current',
  'change [CI]',
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
    `${formatRelativeChange(row.change)}${formatInterval(row.changeLower, row.changeUpper)}`,
    `${(row.threshold * 100).toFixed(1)} %`,
    formatP(row.adjustedP),
    formatDetectable(row.detectable),
    row.verdict,
    formatChangePoint(row.changePoint),
  ];
}

/** "+12 % [+8.1 %, +16 %] at 20261121T090317Z-de04a91c (runc 1.1.5 → 1.3.6)" */
export function formatChangePoint(cp: GateChangePoint | null): string {
  if (cp === null) return '';
  const versions = cp.versionChanges.length ? ` (${cp.versionChanges.join(', ')})` : '';
  return `${formatRelativeChange(cp.step)}${formatInterval(cp.stepLower, cp.stepUpper)} at ${cp.runId}${versions}`;
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
export function renderCheck(report: GateReport, format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const notes = report.rows.flatMap((r) =>
    r.notes.map((n) => `${r.benchmark} · ${r.target} · ${r.kind === 'metric' ? r.metric : r.kind}: ${n}`),
  );
  const uniqueNotes = [...new Set(notes)];
  if (format === 'markdown') {
    const flagged = report.rows.filter(
      (r) => r.verdict === 'regression' || r.verdict === 'ongoing regression' || r.verdict === 'improvement',
    );
    return `${[
      '### runtime-bench check',
      '',
      ...checkHeadline(report).map((l) => `- ${l}`),
      '',
      ...(flagged.length
        ? [markdownTable(CHECK_HEADER, flagged.map(checkCells)), '']
        : ['No regression or improvement beyond the thresholds.', '']),
      '<details><summary>All metrics</summary>',
      '',
      markdownTable(CHECK_HEADER, report.rows.map(checkCells)),
      ...(uniqueNotes.length ? ['', ...uniqueNotes.map((n) => `- ${n}`)] : []),
      '',
      '</details>',
    ].join('\n')}\n`;
  }
  return `${[...checkHeadline(report), '', textTable(CHECK_HEADER, report.rows.map(checkCells)), ...(uniqueNotes.length ? ['', ...uniqueNotes] : [])].join('\n')}\n`;
}
