// The end-of-run verdict: per benchmark family its headline metric (suites/headlines.ts), each
// runtime against the default one (runc), said in a sentence with the interval, the test and the
// smallest change the run could have detected. The statistics are compareRuns' (ratio of medians
// with a bootstrap interval, Mann–Whitney U, Holm, minimum detectable effect), run on the headline
// metrics alone so that Holm corrects over the questions the verdict answers. Pure: no I/O.
import type { RunResult } from '@runtime-bench/schemas';
import { formatChange, formatDetectable, formatP, formatValue } from '../format/index.ts';
import { HEADLINES, type Headline } from '../suites/headlines.ts';
import { compareRuns, type CompareOptions, type CompareRow, type MetricRow } from './compare.ts';

/** The runtime every other is compared with, by handler name (or OCI runtime name). */
export const DEFAULT_RUNTIME = 'runc';

/** Two targets of one run: the candidate is compared with the baseline. */
export interface VerdictPair {
  baseline: string;
  candidate: string;
}

export interface VerdictLine extends VerdictPair {
  family: string;
  headline: Headline;
  /** The headline metric's comparison; absent when it was measured on one side only. */
  metric?: MetricRow;
  /** Present when the benchmark's status differs between the two targets. */
  status?: Extract<CompareRow, { kind: 'status' }>;
  /** Present when the error rates differ significantly. */
  errors?: Extract<CompareRow, { kind: 'error-rate' }>;
  text: string;
}

export interface RunVerdict {
  alpha: number;
  confidence: number;
  /** Holm's family per pair: the headline tests of one candidate against its baseline. */
  lines: VerdictLine[];
}

/**
 * Which targets are compared: each target against the default runtime of its own CRI endpoint
 * (runc on the same daemon, so the daemon is not part of the difference); that default itself,
 * and a target on an endpoint without runc, against the run's first runc target (so a second
 * daemon's runc is compared with the first's); a run without runc against its first target. Only
 * targets with results take part.
 */
export function verdictPairs(run: RunResult): VerdictPair[] {
  const measured = run.targets.filter((t) => run.results.some((r) => r.target === t.id));
  type T = (typeof measured)[number];
  const defaultOf = (ts: T[]): T | undefined =>
    ts.find((t) => t.handler === DEFAULT_RUNTIME) ?? ts.find((t) => t.oci.name === DEFAULT_RUNTIME);
  const overall = defaultOf(measured) ?? measured[0];
  const pairs: VerdictPair[] = [];
  for (const t of measured) {
    const local = defaultOf(measured.filter((p) => p.cri.endpoint === t.cri.endpoint));
    const baseline = local && local !== t ? local : overall;
    if (baseline && baseline !== t) pairs.push({ baseline: baseline.id, candidate: t.id });
  }
  return pairs;
}

/** Per family, the first headline both targets have a result of, with the metric on either side. */
export function headlinesOf(run: RunResult, pair: VerdictPair): Headline[] {
  const result = (target: string, h: Headline) =>
    run.results.find((r) => r.target === target && r.benchmark === h.benchmark);
  const chosen = new Map<string, Headline>();
  for (const h of HEADLINES) {
    if (chosen.has(h.family)) continue;
    const b = result(pair.baseline, h);
    const c = result(pair.candidate, h);
    if (b && c && [b, c].some((r) => r.metrics.some((m) => m.name === h.metric))) chosen.set(h.family, h);
  }
  return [...chosen.values()];
}

/** The run narrowed to the two targets' headline metrics: what compareRuns sees for one pair. */
function narrowed(run: RunResult, pair: VerdictPair, headlines: readonly Headline[]): RunResult {
  const results = run.results.flatMap((r) => {
    if (r.target !== pair.baseline && r.target !== pair.candidate) return [];
    const h = headlines.find((x) => x.benchmark === r.benchmark);
    return h ? [{ ...r, metrics: r.metrics.filter((m) => m.name === h.metric) }] : [];
  });
  return { ...run, results };
}

/** Each pair's verdict lines, in the order of HEADLINES' families. */
export function runVerdict(run: RunResult, options: CompareOptions = {}): RunVerdict {
  const alpha = options.alpha ?? 0.05;
  const confidence = options.confidence ?? 0.95;
  const lines: VerdictLine[] = [];
  for (const pair of verdictPairs(run)) {
    const headlines = headlinesOf(run, pair);
    if (headlines.length === 0) continue;
    const view = narrowed(run, pair, headlines);
    const report = compareRuns(
      { run: view, label: pair.baseline, target: pair.baseline },
      { run: view, label: pair.candidate, target: pair.candidate },
      { ...options, alpha, confidence },
    );
    for (const headline of headlines) {
      const rows = report.rows.filter((r) => r.benchmark === headline.benchmark);
      const line: Omit<VerdictLine, 'text'> = {
        ...pair,
        family: headline.family,
        headline,
        metric: rows.find((r): r is MetricRow => r.kind === 'metric'),
        status: rows.find((r) => r.kind === 'status'),
        errors: rows.find(
          (r): r is Extract<CompareRow, { kind: 'error-rate' }> =>
            r.kind === 'error-rate' && (r.verdict === 'worse' || r.verdict === 'better'),
        ),
      };
      lines.push({ ...line, text: verdictText(line, confidence) });
    }
  }
  return { alpha, confidence, lines };
}

/** "34 %" from 0.34; a bound on the wrong side of zero keeps its sign ("−2.0 %"). */
function size(fraction: number): string {
  return formatChange(fraction).replace(/^\+/, '');
}

/**
 * The sentence of one line. A significant difference is said the headline's way ("crun creates
 * and starts a container 34 % faster than runc"), with the interval of that same quantity: for a
 * lower-is-better metric the share of time saved, 1 − ratio; for a higher-is-better one the
 * gain, ratio − 1. Anything else says what it saw and what it could have seen.
 */
export function verdictText(line: Omit<VerdictLine, 'text'>, confidence = 0.95): string {
  const { headline: h, baseline, candidate } = line;
  const what = `${candidate} vs ${baseline}, ${h.benchmark} ${h.metric}`;
  if (line.status)
    return `${what}: ${line.status.candidate} on ${candidate}, ${line.status.baseline} on ${baseline}${
      line.status.notes[0] ? ` (${line.status.notes[0]})` : ''
    }`;
  const row = line.metric;
  if (!row) return `${what}: measured on one side only`;
  const level = `${Math.round(confidence * 100)} % CI`;
  const n = `n = ${row.baseline.n} + ${row.candidate.n}`;
  const medians = `medians ${formatValue(row.candidate.median, row.unit)} vs ${formatValue(row.baseline.median, row.unit)}`;
  const detect =
    row.detectable !== null
      ? `could detect ${formatDetectable(row.detectable)}`
      : row.pValue !== null
        ? 'no difference could be significant at this n: more runs needed'
        : '';
  const errors = line.errors
    ? `; error rate ${line.errors.candidate.failed}/${line.errors.candidate.attempts} vs ${line.errors.baseline.failed}/${line.errors.baseline.attempts} (${line.errors.verdict})`
    : '';
  const tail = [medians, n, detect].filter(Boolean).join('; ');
  if (row.verdict === 'better' || row.verdict === 'worse') {
    // gain: how much better the candidate is, as a fraction (negative: worse).
    const lower = row.direction === 'lower';
    const gain = (ratio: number): number => (lower ? 1 - ratio : ratio - 1);
    const sign = row.verdict === 'better' ? 1 : -1;
    const g = sign * gain(row.ratio!);
    const bounds =
      row.ratioLower !== null && row.ratioUpper !== null
        ? [sign * gain(row.ratioLower), sign * gain(row.ratioUpper)].sort((a, b) => a - b)
        : null;
    const change = `${size(g)} ${row.verdict === 'better' ? h.better : h.worse}`;
    const sentence = h.says
      .replace('{candidate}', candidate)
      .replace('{baseline}', baseline)
      .replace('{change}', change);
    const ci = bounds ? `${level} ${size(bounds[0]!)} to ${size(bounds[1]!)}; ` : '';
    return `${sentence} (${ci}p = ${formatP(row.adjustedP)}; ${tail})${errors}`;
  }
  if (row.verdict === 'insufficient data') return `${what}: too few values to compare (${tail})${errors}`;
  const ci =
    row.ratioLower !== null && row.ratioUpper !== null
      ? `, ${level} ${formatChange(row.ratioLower - 1)} to ${formatChange(row.ratioUpper - 1)}`
      : '';
  const change = row.ratio === null ? '' : `${formatChange(row.ratio - 1)}${ci}; `;
  return `${what}: no significant difference (${change}${tail})${errors}`;
}

/** The verdict as terminal lines: a heading saying how it was computed, then one line per family. */
export function verdictLines(verdict: RunVerdict): string[] {
  if (verdict.lines.length === 0) return [];
  const width = Math.max(...verdict.lines.map((l) => l.family.length));
  return [
    `Verdict: each runtime against ${DEFAULT_RUNTIME}, one headline metric per benchmark family`,
    `(ratio of medians, ${Math.round(verdict.confidence * 100)} % bootstrap CI; Mann-Whitney U, Holm-adjusted over each runtime's headline tests, alpha ${verdict.alpha}; "could detect": the smallest change found with 80 % power)`,
    ...verdict.lines.flatMap((l, i) => {
      const prev = verdict.lines[i - 1];
      // A blank line between runtimes: each block reads as one runtime's answer.
      const gap = prev && prev.candidate !== l.candidate ? [''] : [];
      return [...gap, `  ${l.family.padEnd(width)}  ${l.text}`];
    }),
  ];
}
