// How `check` prints its side-by-side version-change verdicts (version-change.ts), in the terminal
// and in Markdown: one line per pair, then the metrics that are not "same", each verdict beside the
// interval and threshold it is read off.
import { escapeMarkdown, sanitizeTerminal } from '../format/escape.ts';
import { formatChange, formatP } from '../format/number.ts';
import { markdownTable, terminalTable } from '../format/table.ts';
import type { MetricDecision } from '../stats/change-decision.ts';
import type { VersionChangeReport } from './version-change.ts';

export interface VersionChangeCounts {
  /** Regressions of declared version changes: the night's (check --fail-on-regression fails on them). */
  regression: number;
  /** Regressions of pairs found but not declared (a sweep's adjacent versions): reported only. */
  reportedRegression: number;
  improvement: number;
  same: number;
  unclear: number;
}

export function versionChangeCounts(reports: readonly VersionChangeReport[]): VersionChangeCounts {
  const counts: VersionChangeCounts = {
    regression: 0,
    reportedRegression: 0,
    improvement: 0,
    same: 0,
    unclear: 0,
  };
  for (const r of reports)
    for (const m of r.decision?.metrics ?? []) {
      if (m.verdict === 'regression') {
        if (r.declared) counts.regression += 1;
        else counts.reportedRegression += 1;
      } else counts[m.verdict] += 1;
    }
  return counts;
}

/** "+7.1 % [+2.6 %, +11.7 %] at 99.9 %". */
export function formatChangeInterval(
  m: Pick<MetricDecision, 'change' | 'lower' | 'upper' | 'confidence'>,
): string {
  return `${formatChange(m.change)} [${formatChange(m.lower)}, ${formatChange(m.upper)}] at ${(m.confidence * 100).toFixed(m.confidence > 0.999 ? 2 : 1)} %`;
}

/** The headline of one pair: what it compares, on which nights, how many metrics came out how. */
export function pairHeadline(r: VersionChangeReport): string {
  const kind = r.declared ? 'version change' : 'side by side';
  const look = r.decision ? `, night ${r.decision.look} of ${r.decision.looks}` : '';
  const tally = (r.decision?.metrics ?? []).reduce<Record<string, number>>(
    (t, m) => ({ ...t, [m.verdict]: (t[m.verdict] ?? 0) + 1 }),
    {},
  );
  const verdicts = (['regression', 'improvement', 'unclear', 'same'] as const)
    .filter((v) => tally[v])
    .map((v) => `${tally[v]} ${v}`)
    .join(', ');
  return `${kind}: ${r.label} (${r.before} → ${r.after}${look}): ${verdicts || 'not decided'}`;
}

const HEADER = ['pair', 'metric', 'verdict', 'change [interval]', 'threshold', 'test', 'p'];

function cells(r: VersionChangeReport, m: MetricDecision): string[] {
  return [
    r.label,
    m.metric,
    m.verdict,
    formatChangeInterval(m),
    `±${formatChange(m.threshold).replace(/^\+/, '')}`,
    `${m.design === 'paired' ? 'paired signed-rank' : 'Mann–Whitney'}, n ${m.n.a}/${m.n.b}`,
    formatP(m.test.pValue),
  ];
}

/** The metrics worth a row: every one but "same" (a sweep of eleven versions would print 110 rows). */
const flagged = (reports: readonly VersionChangeReport[]) =>
  reports.flatMap((r) =>
    (r.decision?.metrics ?? []).filter((m) => m.verdict !== 'same').map((m) => cells(r, m)),
  );

export function versionChangeTerminal(reports: readonly VersionChangeReport[]): string[] {
  if (reports.length === 0) return [];
  const rows = flagged(reports);
  return [
    '',
    ...reports.flatMap((r) =>
      [pairHeadline(r), ...r.notes.map((n) => `  note: ${n}`)].map((l) => sanitizeTerminal(l)),
    ),
    ...(rows.length ? ['', terminalTable(HEADER, rows)] : []),
  ];
}

export function versionChangeMarkdown(reports: readonly VersionChangeReport[]): string[] {
  if (reports.length === 0) return [];
  const rows = flagged(reports);
  return [
    '#### Side by side in this run',
    '',
    ...reports.flatMap((r) => [
      `- ${escapeMarkdown(pairHeadline(r))}`,
      ...r.notes.map((n) => `  - ${escapeMarkdown(n)}`),
    ]),
    '',
    ...(rows.length ? [markdownTable(HEADER, rows), ''] : []),
  ];
}
