// A bisection report for people: a terminal table, Markdown for a job summary; and as JSON.
import type { BisectReport, RatioInterval } from '@runtime-bench/schemas';
import { escapeMarkdown } from '../format/escape.ts';
import { formatChange, formatNumber, MISSING } from '../format/number.ts';
import { markdownTable, terminalTable } from '../format/table.ts';

/** "+12.3 % [+10.1 %, +14.6 %]": a ratio as a change with its interval. */
export function formatEffect(e: RatioInterval | null): string {
  if (!e) return MISSING;
  return `${formatChange(e.ratio - 1)} [${formatChange(e.lower - 1)}, ${formatChange(e.upper - 1)}]`;
}

/** The step table's columns (the CLI's table, the Markdown and the site's page). */
export const BISECT_STEP_HEADER = [
  '#',
  'version',
  'verdict',
  'attempt',
  'rounds',
  'looks',
  'candidate / good',
  'position',
  'bad / candidate',
  'threshold',
  'confidence',
  'build',
  'measure',
];

/** One row of cells per step, as the CLI prints them. */
export function bisectStepRows(report: BisectReport): string[][] {
  return report.steps.map((s, i) => [
    String(i + 1),
    s.kind === 'ends' ? `${report.good} vs ${report.bad}` : s.candidate.label,
    s.verdict,
    String(s.attempt),
    String(s.rounds),
    String(s.looks),
    formatEffect(s.effect),
    s.position === null ? MISSING : formatNumber(s.position, 2),
    formatEffect(s.badVsCandidate),
    s.threshold === null ? MISSING : `±${formatChange(s.threshold).replace(/^[+±]/, '')}`,
    s.effect ? `${formatNumber(s.effect.confidence * 100, 4)} %` : MISSING,
    `${formatNumber(s.buildSeconds / 60, 2)} min`,
    `${formatNumber(s.measureSeconds / 60, 2)} min`,
  ]);
}

/** The lines above the step table: what was bisected, what was found, and what it cost. */
export function bisectHeadline(r: BisectReport): string[] {
  const spent = r.spent;
  return [
    `${r.component} ${r.good} → ${r.bad}: ${r.benchmark} ${r.metric} (${r.direction})`,
    `outcome: ${r.outcome} — ${r.message}`,
    `first bad release: ${r.firstBadRelease ?? MISSING} (last good ${r.lastGoodRelease ?? MISSING})`,
    `first bad commit: ${r.firstBadCommit?.label ?? MISSING} (last good ${r.lastGoodCommit?.label ?? MISSING})`,
    ...(r.skippedBetween.length > 0
      ? [`undecided between them: ${r.skippedBetween.map((c) => c.label).join(', ')}`]
      : []),
    `effect (bad / good): ${formatEffect(r.effect)} at ${r.effect ? `${r.effect.confidence * 100} %, ${r.effect.n} rounds` : MISSING}`,
    `spent: ${spent.builds} builds, ${formatNumber(spent.buildMinutes, 3)} build min, ${formatNumber(spent.runnerMinutes, 3)} runner min, ${formatNumber(spent.totalMinutes, 3)} min in all${spent.budgetMinutes === null ? '' : ` of ${spent.budgetMinutes}`}`,
    `test: ${r.method.test}; alpha ${r.method.alpha} per step, ≤ ${r.method.maxLooks} looks of ${r.method.roundsPerLook} rounds`,
    `tool: ${r.tool.name} ${r.tool.version}, ${r.tool.gitCommit ? `commit ${r.tool.gitCommit}` : 'commit not recorded'}`,
  ];
}

/** The report as aligned plain text for a terminal. */
export function bisectTable(report: BisectReport): string {
  return [...bisectHeadline(report), '', terminalTable(BISECT_STEP_HEADER, bisectStepRows(report))].join(
    '\n',
  );
}

/** The report as Markdown, for a GitHub job summary or an issue. */
export function bisectMarkdown(report: BisectReport): string {
  const lines = bisectHeadline(report).map((l) => `- ${escapeMarkdown(l)}`);
  return [
    `### Bisection: ${escapeMarkdown(`${report.component} ${report.good} → ${report.bad}, ${report.metric}`)}`,
    '',
    ...lines,
    '',
    markdownTable(BISECT_STEP_HEADER, bisectStepRows(report)),
    '',
  ].join('\n');
}

/** The report as JSON (validated by BisectReportV3Schema before it is written). */
export function bisectJson(report: BisectReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
