// GitHub's caps: a step summary of at most 1 MiB, 10 annotations of a kind per step. Nothing may
// be cut silently: what is left out is counted, named and pointed to; the most important comes first.
import { describe, expect, test } from 'vitest';
import { sampleRunResult } from '../../schemas/test/sample.ts';
import { checkLines, type CheckReport } from '../src/regressions.ts';
import {
  capLines,
  fitSummary,
  planAnnotations,
  STEP_SUMMARY_LIMIT,
  type SummaryPart,
} from '../src/step-summary.ts';
import type { RankedAnnotation } from '../src/annotation.ts';
import { stepSummaryParts } from '../src/summary.ts';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('fitSummary', () => {
  const part = (size: number, optional?: string): SummaryPart => ({
    html: 'x'.repeat(size),
    ...(optional ? { optional } : {}),
  });

  test('a summary within the limit is every part, unchanged', () => {
    const parts = [part(100), part(200, 'a'), part(300, 'b'), part(50)];
    expect(fitSummary(parts, 1000)).toBe(parts.map((p) => p.html).join(''));
  });

  test('over the limit: required parts stay, tables go from the first that does not fit, a note names them', () => {
    // 3300-byte limit: head 100 + tail 50 required; tables of 1000 each: with the note's room
    // (between 150 and 1150 bytes) two fit, the third does not, so the third to the fifth go.
    const parts = [part(100), ...['t1', 't2', 't3', 't4', 't5'].map((n) => part(1000, n)), part(50)];
    const out = fitSummary(parts, 3300);
    expect(bytes(out)).toBeLessThanOrEqual(3300);
    expect(out.startsWith('x'.repeat(100))).toBe(true);
    expect(out.endsWith('x'.repeat(50))).toBe(true);
    expect(out).toContain('3 table(s) left out of this summary');
    expect(out).toContain('t3, t4, t5.');
    expect(out).toContain('summary-path');
    // the note sits where the first missing table was: after the two kept ones
    expect(out.indexOf('<p><strong>3 table(s) left out')).toBe(100 + 2000);
  });

  test('a large run: the step summary stays within 1 MiB, keeps the regression check and the cost table', () => {
    // 60 benchmarks × 40 targets × 8 metrics: over 3 MiB of HTML tables.
    const base = sampleRunResult();
    const template = base.results[0]!;
    const result = {
      ...base,
      results: Array.from({ length: 60 }, (_, b) =>
        Array.from({ length: 40 }, (_, t) => ({
          ...template,
          benchmark: `family.bench-${b}`,
          target: `containerd/handler-${t}`,
          metrics: Array.from({ length: 8 }, (_, m) => ({ ...template.metrics[0]!, name: `metric_${m}` })),
        })),
      ).flat(),
    };
    const check = {
      regressions: Array.from(
        { length: 500 },
        (_, i) => `family.bench-${i} metric_0 on containerd/handler-0: +50.0 %`,
      ),
      ongoing: [],
      coverage: ['19200 of 19200 rows checked'],
      entries: [],
    };
    const parts = stepSummaryParts([{ file: 'result.json', result }], check, [
      { step: 'run', seconds: 600, note: '' },
    ]);
    const all = parts.reduce((n, p) => n + bytes(p.html), 0);
    expect(all).toBeGreaterThan(3 * STEP_SUMMARY_LIMIT);
    const out = fitSummary(parts);
    expect(bytes(out)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    const kept = (out.match(/<h2>family\.bench-\d+<\/h2>/g) ?? []).length;
    expect(kept).toBeGreaterThan(0);
    expect(out).toContain(`${60 - kept} table(s) left out of this summary`);
    // the first tables are the ones kept, in order
    expect(out).toContain(`<h2>family.bench-${kept - 1}</h2>`);
    expect(out).not.toContain(`<h2>family.bench-${kept}</h2>`);
    // the regression list is capped at 200 lines, the last one saying how many more
    expect(out).toContain('<h2>New regressions</h2>');
    expect((out.match(/<li>family\.bench-\d+ metric_0/g) ?? []).length).toBe(199);
    expect(out).toContain('… and 301 more: see');
    expect(out).toContain('| run | 600.0 |');
  });
});

describe('capLines', () => {
  test('at most max lines, the last one counting the rest', () => {
    expect(capLines(['a', 'b'], 3)).toEqual(['a', 'b']);
    const capped = capLines(['a', 'b', 'c', 'd', 'e'], 3);
    expect(capped.slice(0, 2)).toEqual(['a', 'b']);
    expect(capped[2]).toMatch(/^… and 3 more: see /);
  });
});

describe('planAnnotations', () => {
  const a = (level: 'error' | 'warning', rank: number, title: string): RankedAnnotation => ({
    level,
    rank,
    title,
    message: title,
  });

  test('within the cap: all, most important first, in their order within a rank', () => {
    const plan = planAnnotations([
      a('error', 2, 'failed'),
      a('warning', 4, 'unsupported'),
      a('error', 0, 'incomplete'),
    ]);
    expect(plan.map((p) => p.title)).toEqual(['incomplete', 'failed', 'unsupported']);
  });

  test('over the cap: one error kept back for the step failure, the last shown counts the rest', () => {
    const list = [
      ...Array.from({ length: 25 }, (_, i) => a('error', 1, `regression ${i}`)),
      ...Array.from({ length: 3 }, (_, i) => a('error', 2, `failed ${i}`)),
      a('error', 0, 'incomplete'),
      ...Array.from({ length: 12 }, (_, i) => a('warning', i % 2 ? 3 : 4, `warning ${i}`)),
    ];
    const plan = planAnnotations(list, { error: 1 });
    const errors = plan.filter((p) => p.level === 'error');
    const warnings = plan.filter((p) => p.level === 'warning');
    // 10 per step, 1 kept back: 9 errors, the 9th the count of the 29 − 8 = 21 not shown
    expect(errors).toHaveLength(9);
    expect(errors.slice(0, 8).map((e) => e.title)).toEqual([
      'incomplete',
      ...Array.from({ length: 7 }, (_, i) => `regression ${i}`),
    ]);
    expect(errors[8]!.title).toBe('runtime-bench: 21 more error(s) not shown');
    expect(errors[8]!.message).toContain('all 29 are in');
    // warnings: rank 3 (invalid, odd i) before rank 4; 9 shown, the 10th counts 12 − 9 = 3
    expect(warnings).toHaveLength(10);
    expect(warnings.slice(0, 6).map((w) => w.title)).toEqual([1, 3, 5, 7, 9, 11].map((i) => `warning ${i}`));
    expect(warnings[9]!.title).toBe('runtime-bench: 3 more warning(s) not shown');
  });
});

describe('checkLines: most important regression first', () => {
  test('a benchmark that stopped working, then error rates, then metrics by the size of the change', () => {
    const row = (kind: string, benchmark: string, change: number | null = null) => ({
      kind,
      benchmark,
      metric: 'm',
      target: 't',
      verdict: 'regression',
      change,
      adjustedP: null,
      changePoint: null,
    });
    const report = {
      rows: [
        row('metric', 'small', 0.11),
        row('metric', 'large', 0.9),
        row('error-rate', 'errors'),
        row('metric', 'middle', 0.3),
        row('status', 'broken'),
      ],
      coverage: { checked: 5, rows: 5, notChecked: [] },
      current: { label: 'c', runId: 'r', startedAt: '', hostClass: 'h' },
      targets: [],
    } as unknown as CheckReport;
    expect(checkLines(report).regressions.map((l) => l.split(' ')[0])).toEqual([
      'broken',
      'errors',
      'large',
      'middle',
      'small',
    ]);
  });
});
