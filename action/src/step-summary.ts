// GitHub's caps on what a step shows, applied so that nothing is cut silently: a step summary
// holds at most 1 MiB (a larger one is dropped with an error), and a step shows at most 10
// annotations of a kind (50 per job; the rest are not shown). The step summary keeps what matters
// most (the runs, the regression check, the runner-side cost) and leaves out benchmark tables from
// the end, saying which and where the full summary is; annotations go most important first, and
// the last one shown counts those left out. Pure.
import { escapeHtml, formatValue } from '@runtime-bench/runner/format';
import type { Annotation, RankedAnnotation } from './annotation.ts';

/** GitHub's limit on one step's summary, in bytes. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;

/** GitHub shows at most this many annotations of one kind (error, warning) per step. */
export const ANNOTATIONS_PER_STEP = 10;

/** Where the full summary is, for the note of what a step summary left out. */
export const FULL_SUMMARY_WHERE =
  "the action's summary-path output (summary.md: every table; the reusable workflow uploads it in the artifact runtime-bench-<target>) and, once published, the site";

/** A part of the step summary; a part with `optional` may be left out (a benchmark table). */
export interface SummaryPart {
  html: string;
  /** What the part is, for the note when it is left out, e.g. "operations.container.lifecycle". */
  optional?: string;
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * The parts that fit in `limit` bytes, in their order: every required part, then the optional
 * ones in order as long as they fit; once one does not, it and every later optional part are left
 * out (a table never appears after one that is missing), and a note at the first gap says how
 * many, which, and where the full summary is. A list of required lines too long for the limit
 * is the caller's to cap (see `capLines`).
 */
export function fitSummary(parts: readonly SummaryPart[], limit = STEP_SUMMARY_LIMIT): string {
  const required = parts.filter((p) => p.optional === undefined).reduce((n, p) => n + bytes(p.html), 0);
  const omitted = omittedParts(parts, limit, required);
  if (omitted.size === 0) return parts.map((p) => p.html).join('');
  const names = [...omitted].map((p) => p.optional!);
  const out: string[] = [];
  let noted = false;
  for (const p of parts) {
    if (!omitted.has(p)) out.push(p.html);
    else if (!noted) {
      out.push(omissionNote(names, limit));
      noted = true;
    }
  }
  return out.join('');
}

/** Which optional parts to leave out: from the first that no longer fits (with the note's room). */
function omittedParts(parts: readonly SummaryPart[], limit: number, required: number): Set<SummaryPart> {
  const optional = parts.filter((p) => p.optional !== undefined);
  const all = optional.reduce((n, p) => n + bytes(p.html), required);
  if (all <= limit) return new Set();
  // The note lists every omitted name at worst: reserve its size for all optional parts.
  const reserve = bytes(
    omissionNote(
      optional.map((p) => p.optional!),
      limit,
    ),
  );
  let used = required + reserve;
  let cut = optional.length;
  for (let i = 0; i < optional.length; i++) {
    used += bytes(optional[i]!.html);
    if (used > limit) {
      cut = i;
      break;
    }
  }
  return new Set(optional.slice(cut));
}

/** The note in place of the tables left out: how many, which (the first 20), and where they are. */
export function omissionNote(names: readonly string[], limit = STEP_SUMMARY_LIMIT): string {
  const shown = names.slice(0, 20).join(', ');
  const more = names.length > 20 ? ` and ${names.length - 20} more` : '';
  return `<p><strong>${names.length} table(s) left out of this summary</strong> (GitHub keeps at most ${formatValue(limit, 'bytes')} per step): ${escapeHtml(shown)}${more}. Every table is in ${escapeHtml(FULL_SUMMARY_WHERE)}.</p>\n`;
}

/** At most `max` lines, the last of them saying how many more there are and where. */
export function capLines(lines: readonly string[], max: number): string[] {
  if (lines.length <= max) return [...lines];
  return [...lines.slice(0, max - 1), `… and ${lines.length - max + 1} more: see ${FULL_SUMMARY_WHERE}`];
}

/**
 * The annotations to emit, errors and warnings each sorted by rank (stable: equal ranks keep
 * their order) and capped at what GitHub shows: `reserved` leaves room for annotations the step
 * makes afterwards (its failure is one more error). When some are left out, the last one shown of
 * that kind says how many and where they all are.
 */
export function planAnnotations(
  annotations: readonly RankedAnnotation[],
  reserved: Partial<Record<Annotation['level'], number>> = {},
  perStep = ANNOTATIONS_PER_STEP,
): Annotation[] {
  const out: Annotation[] = [];
  for (const level of ['error', 'warning'] as const) {
    const of = annotations
      .map((a, i) => ({ a, i }))
      .filter(({ a }) => a.level === level)
      .sort((x, y) => x.a.rank - y.a.rank || x.i - y.i)
      .map(({ a }) => ({ level: a.level, title: a.title, message: a.message }));
    const room = Math.max(1, perStep - (reserved[level] ?? 0));
    if (of.length <= room) out.push(...of);
    else
      out.push(...of.slice(0, room - 1), {
        level,
        title: `runtime-bench: ${of.length - room + 1} more ${level}(s) not shown`,
        message: `GitHub shows ${perStep} ${level} annotations per step; all ${of.length} are in the job summary and in ${FULL_SUMMARY_WHERE}`,
      });
  }
  return out;
}
