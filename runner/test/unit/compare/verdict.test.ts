// The end-of-run verdict. Samples are written out by hand so that every expected number (medians,
// ratios, exact Mann–Whitney p-values, Holm) is worked out here, not by the code under test.
import type { BenchmarkResult, Direction, RunResult, Target, Unit } from '@runtime-bench/schemas';
import { describe, expect, test } from 'vitest';
import { sampleRunResult } from '../../../../schemas/test/sample.ts';
import { headlinesOf, runVerdict, verdictLines, verdictPairs } from '../../../src/compare/verdict.ts';
import { endOfRunReport } from '../../../src/run/report.ts';
import { logSpread, minimumDetectableRatio, summarize } from '../../../src/stats/index.ts';
import { BENCHMARKS } from '../../../src/suites/registry.ts';
import { HEADLINES } from '../../../src/suites/headlines.ts';

function target(id: string, handler: string, oci = handler, endpoint = 'unix:///tmp/a.sock'): Target {
  return {
    id,
    cri: { name: 'containerd', version: '2.1.9', apiVersion: 'v1', endpoint },
    handler,
    oci: { name: oci, version: '1.0.0', path: `/usr/bin/${oci}` },
    transport: 'grpc',
  };
}

interface Metric {
  benchmark: string;
  name: string;
  unit: Unit;
  direction: Direction;
  samples: Record<string, number[]>;
}

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

function run(
  targets: Target[],
  metrics: Metric[],
  status: Record<string, BenchmarkResult['status']> = {},
): RunResult {
  const results: BenchmarkResult[] = [];
  for (const t of targets)
    for (const benchmark of [...new Set(metrics.map((m) => m.benchmark))]) {
      const s = status[`${benchmark} ${t.id}`] ?? 'ok';
      const ms = metrics.filter((m) => m.benchmark === benchmark && m.samples[t.id]);
      results.push({
        benchmark,
        target: t.id,
        status: s,
        ...(s === 'ok' ? {} : { reason: 'it broke' }),
        parameters: {},
        attempts: 8,
        failedAttempts: 0,
        metrics:
          s === 'ok'
            ? ms.map((m) => ({
                name: m.name,
                unit: m.unit,
                direction: m.direction,
                samples: m.samples[t.id]!,
                errors: { count: 0, messages: [] },
                summary: summarize(m.samples[t.id]!),
              }))
            : [],
      });
    }
  return { ...sampleRunResult(), targets, results };
}

const RUNC = target('ctd/runc', 'runc');
const CRUN = target('ctd/crun', 'crun');

const metric =
  (benchmark: string, name: string, unit: Unit, direction: Direction) =>
  (samples: Record<string, number[]>): Metric => ({ benchmark, name, unit, direction, samples });
const lifecycle = metric('operations.container.lifecycle', 'create-and-run', 'ms', 'lower');
const cpu = metric('performance.cpu', 'events_per_second', 'events/s', 'higher');

describe('verdictPairs: each runtime against runc', () => {
  test('against the runc of its own endpoint; a runc elsewhere and a lone runtime against the first runc', () => {
    const b = 'unix:///tmp/b.sock';
    const c = 'unix:///tmp/c.sock';
    const targets = [
      target('a/crun', 'crun'),
      target('a/runc', 'runc'),
      target('b/runc', 'runc', 'runc', b),
      target('b/runc-1.3.6', 'runc-1.3.6', 'runc', b),
      target('c/youki', 'youki', 'youki', c),
    ];
    const r = run(targets, [lifecycle(Object.fromEntries(targets.map((t) => [t.id, [1, 2]])))]);
    expect(verdictPairs(r)).toEqual([
      { baseline: 'a/runc', candidate: 'a/crun' },
      { baseline: 'a/runc', candidate: 'b/runc' },
      { baseline: 'b/runc', candidate: 'b/runc-1.3.6' },
      { baseline: 'a/runc', candidate: 'c/youki' },
    ]);
  });

  test('without runc the first target is the baseline; one target, or targets without results, give nothing', () => {
    const x = target('x/crun', 'crun');
    const y = target('x/youki', 'youki');
    expect(verdictPairs(run([x, y], [lifecycle({ 'x/crun': [1], 'x/youki': [2] })]))).toEqual([
      { baseline: 'x/crun', candidate: 'x/youki' },
    ]);
    expect(verdictPairs(run([RUNC], [lifecycle({ 'ctd/runc': [1] })]))).toEqual([]);
    expect(verdictPairs({ ...run([RUNC], [lifecycle({ 'ctd/runc': [1] })]), targets: [RUNC, CRUN] })).toEqual(
      [],
    );
  });
});

describe('headlines', () => {
  test('every headline names a metric its benchmark defines (a renamed metric must not drop a family)', () => {
    const defined = new Map(
      BENCHMARKS.map((b) => [b.definition.name, b.definition.metrics.map((m) => m.name)]),
    );
    for (const h of HEADLINES) expect(defined.get(h.benchmark), `${h.benchmark}`).toContain(h.metric);
  });

  test('a family falls back to the next candidate the run measured', () => {
    const both = { 'ctd/runc': [1, 2], 'ctd/crun': [1, 2] };
    const disk = metric('performance.disk', 'seqwr_mib_per_second', 'MiB/s', 'higher')(both);
    const serial = metric('scalability.runtime.10', 'serial_start_all', 's', 'lower')(both);
    const chosen = headlinesOf(run([RUNC, CRUN], [disk, serial]), {
      baseline: 'ctd/runc',
      candidate: 'ctd/crun',
    });
    expect(chosen.map((h) => `${h.benchmark} ${h.metric}`)).toEqual([
      'performance.disk seqwr_mib_per_second',
      'scalability.runtime.10 serial_start_all',
    ]);
  });
});

describe('runVerdict', () => {
  test('significant differences are said the headline way, with the interval, p, n and what it could detect', () => {
    const r = run(
      [RUNC, CRUN],
      [
        // medians 103.5 vs 53.5 ms: 1 − 53.5/103.5 = 48.3 % less time
        lifecycle({ 'ctd/runc': range(100, 8), 'ctd/crun': range(50, 8) }),
        // medians 1003.5 vs 903.5 events/s: 903.5/1003.5 − 1 = −9.965 %: 10.0 % slower
        cpu({ 'ctd/runc': range(1000, 8), 'ctd/crun': range(900, 8) }),
      ],
    );
    const v = runVerdict(r);
    expect(v.lines.map((l) => l.family)).toEqual(['operations', 'performance']);
    // Complete separation of 8 against 8: exact two-sided p = 2 / C(16, 8) = 2 / 12870; Holm over
    // the pair's two tests: both 2 × 1.554e-4 = 3.1e-4.
    const [ops, perf] = v.lines.map((l) => l.text);
    expect(ops).toMatch(
      /^ctd\/crun creates and starts a container 48\.3 % faster than ctd\/runc \(95 % CI [\d.]+ % to [\d.]+ %; p = 0\.00031; medians 53\.5 ms vs 103\.5 ms; n = 8 \+ 8; could detect ≥ [\d.]+ %\)$/,
    );
    expect(perf).toMatch(/^ctd\/crun computes \(sysbench cpu\) 10\.0 % slower than ctd\/runc \(95 % CI /);
    expect(perf).toContain('p = 0.00031');
    expect(v.lines[0]!.metric!.verdict).toBe('better');
    expect(v.lines[1]!.metric!.verdict).toBe('worse');
    // The interval is of the same quantity as the sentence: the share of time saved contains 48.3 %.
    const [lo, hi] = /CI ([\d.]+) % to ([\d.]+) %/.exec(ops!)!.slice(1).map(Number);
    expect(lo).toBeLessThanOrEqual(48.3);
    expect(hi).toBeGreaterThanOrEqual(48.3);
  });

  test("each family's \"could detect\" is the power machinery's at the run's n and the Holm level of its headlines", () => {
    const samples = {
      runc: range(100, 8),
      crun: [50, 52, 55, 51, 58, 60, 49, 57],
      cpuRunc: range(1000, 8),
      cpuCrun: [990, 1012, 1001, 995, 1020, 1004, 998, 1007],
    };
    const r = run(
      [RUNC, CRUN],
      [
        lifecycle({ 'ctd/runc': samples.runc, 'ctd/crun': samples.crun }),
        cpu({ 'ctd/runc': samples.cpuRunc, 'ctd/crun': samples.cpuCrun }),
      ],
    );
    // Two headline tests: Holm's strictest level 0.05 / 2; the spread pooled over both sides.
    const expected = (a: number[], b: number[]): number => {
      const sigma = Math.sqrt((logSpread(a)! ** 2 + logSpread(b)! ** 2) / 2);
      return 100 * minimumDetectableRatio(sigma, a.length, b.length, { alpha: 0.025 })!;
    };
    // The printed percentage, to its last printed digit.
    const printed = (text: string): { value: number; digits: number } => {
      const m = /could detect ≥ ([\d.]+) %/.exec(text)!;
      return { value: Number(m[1]), digits: m[1]!.split('.')[1]?.length ?? 0 };
    };
    const [ops, perf] = runVerdict(r).lines.map((l) => l.text);
    for (const [text, want] of [
      [ops!, expected(samples.runc, samples.crun)],
      [perf!, expected(samples.cpuRunc, samples.cpuCrun)],
    ] as const) {
      const got = printed(text);
      expect(Math.abs(got.value - want)).toBeLessThanOrEqual(0.5 * 10 ** -got.digits + 1e-9);
    }
  });

  test('three against three cannot be significant, and the line says so instead of a verdict', () => {
    // smallest exact two-sided p of 3 vs 3: 2 / C(6, 3) = 0.1 > 0.05; 51 / 101 − 1 = −49.5 %
    const r = run([RUNC, CRUN], [lifecycle({ 'ctd/runc': [100, 101, 102], 'ctd/crun': [50, 51, 52] })]);
    const [line] = runVerdict(r).lines;
    expect(line!.metric!.verdict).toBe('no significant difference');
    expect(line!.text).toBe(
      'ctd/crun vs ctd/runc, operations.container.lifecycle create-and-run: no significant difference (−49.5 %, 95 % CI ' +
        /CI (\S+ % to \S+ %)/.exec(line!.text)![1] +
        '; medians 51 ms vs 101 ms; n = 3 + 3; no difference could be significant at this n: more runs needed)',
    );
  });

  test('a benchmark that failed on one side is reported as such, not compared', () => {
    const r = run([RUNC, CRUN], [lifecycle({ 'ctd/runc': [1, 2, 3], 'ctd/crun': [1, 2, 3] })], {
      'operations.container.lifecycle ctd/crun': 'failed',
    });
    expect(runVerdict(r).lines.map((l) => l.text)).toEqual([
      'ctd/crun vs ctd/runc, operations.container.lifecycle create-and-run: failed on ctd/crun, ok on ctd/runc (it broke)',
    ]);
  });

  test('verdictLines: a heading, then one line per family and runtime', () => {
    const r = run([RUNC, CRUN], [lifecycle({ 'ctd/runc': range(100, 8), 'ctd/crun': range(50, 8) })]);
    const lines = verdictLines(runVerdict(r));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^Verdict: each runtime against runc/);
    expect(lines[2]).toMatch(/^ {2}operations {2}ctd\/crun creates and starts/);
  });
});

describe('endOfRunReport', () => {
  const two = run([RUNC, CRUN], [lifecycle({ 'ctd/runc': range(100, 8), 'ctd/crun': range(50, 8) })]);
  const tableHeader = /benchmark\s+target\s+metric\s+median/;

  test('two targets: the verdict and where the rest is, no table unless asked', () => {
    const out = endOfRunReport(two, '/tmp/r.json').join('\n');
    expect(out).not.toMatch(tableHeader);
    expect(out).toContain('creates and starts a container 48.3 % faster');
    expect(out).toContain(
      'runtime-bench compare /tmp/r.json --baseline-target ctd/runc --target ctd/crun; every median: run with --table',
    );
    const withTable = endOfRunReport(two, '/tmp/r.json', { table: true }).join('\n');
    expect(withTable).toMatch(tableHeader);
    expect(withTable.indexOf('median')).toBeLessThan(withTable.indexOf('Verdict'));
  });

  test('one target: its table, nothing to compare', () => {
    const out = endOfRunReport(run([RUNC], [lifecycle({ 'ctd/runc': [1, 2, 3] })]), '/tmp/r.json').join('\n');
    expect(out).toMatch(tableHeader);
    expect(out).not.toContain('Verdict');
  });
});
