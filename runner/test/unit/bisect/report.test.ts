import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bisectionId, bisectionPathInDataDir, relativeBisectionPath } from '../../../src/results/layout.ts';
import { describe, expect, it } from 'vitest';
import { BISECT_REPORT_SCHEMA_VERSION, BisectReportSchema } from '@runtime-bench/schemas';
import { parseResult } from '../../../src/results/io.ts';
import { bisect } from '../../../src/bisect/bisect.ts';
import { bisectJson, bisectMarkdown, bisectTable, formatEffect } from '../../../src/bisect/format.ts';
import { handlerNames, lookConfig, lookSamples } from '../../../src/bisect/measure-plan.ts';
import { createRng } from '../../../src/stats/index.ts';
import { gaussian, makeHistory, oracleDeps, oracleOptions } from '../../support/bisect-oracle.ts';

async function oracleReport() {
  const h = makeHistory({ commits: 17, every: 8, culprit: (c) => c[11]!.hash, factor: 1.4 });
  const walk = await bisect(
    oracleOptions(h, { maxLooks: 5, budgetMinutes: 30 }),
    oracleDeps(h, createRng(7), (rng) => Math.exp(0.05 * gaussian(rng))),
  );
  const report = BisectReportSchema.parse({
    schemaVersion: BISECT_REPORT_SCHEMA_VERSION,
    startedAt: '2026-11-26T21:00:00.000Z',
    finishedAt: '2026-11-26T21:30:00.000Z',
    tool: { name: 'runtime-bench', version: '0.1.0', gitCommit: 'c0ffee'.padEnd(40, '0') },
    host: null,
    ...walk,
  });
  return { h, report };
}

describe('the bisection report', () => {
  it('validates and survives a JSON round trip', async () => {
    const { report } = await oracleReport();
    expect(BisectReportSchema.parse(JSON.parse(bisectJson(report)))).toEqual(report);
    expect(() => BisectReportSchema.parse({ ...report, outcome: 'maybe' })).toThrow(/outcome/);
  });

  it('table and Markdown name the first bad release and commit, the effect and every step', async () => {
    const { h, report } = await oracleReport();
    const culprit = h.commits[11]!;
    const table = bisectTable(report);
    expect(table).toContain('first bad release: 1.2.0 (last good 1.1.0)');
    expect(table).toContain(`first bad commit: ${culprit.hash.slice(0, 12)} ${culprit.subject}`);
    expect(table).toContain(`effect (bad / good): ${formatEffect(report.effect)}`);
    expect(table).toMatch(/spent: \d+ builds, [\d.]+ build min, [\d.]+ runner min/);
    const rows = table.split('\n').filter((l) => /^\s*\d+\s{2}/.test(l));
    expect(rows).toHaveLength(report.steps.length);
    // Each row prints what its verdict is read off: both intervals, the threshold, the confidence.
    expect(table).toContain(`tool: runtime-bench 0.1.0, commit ${'c0ffee'.padEnd(40, '0')}`);
    const candidate = report.steps.find((st) => st.kind === 'candidate')!;
    const row = rows[report.steps.indexOf(candidate)]!;
    expect(row).toContain(formatEffect(candidate.effect));
    expect(row).toContain(formatEffect(candidate.badVsCandidate));
    expect(row).toContain(`±${(candidate.threshold! * 100).toFixed(1)} %`);
    expect(row).toContain(`${Number((candidate.effect!.confidence * 100).toPrecision(4))} %`);
    const md = bisectMarkdown(report);
    expect(md).toMatch(/^### Bisection: runc 1\.0\.0 → 1\.2\.0, StartContainer/);
    expect(md.split('\n').filter((l) => l.startsWith('| ')).length).toBe(report.steps.length + 2); // header, rule, steps
  });

  it('reads a version-2 report (only builds that built) in the version-3 shape, error null, keeping its version', async () => {
    const { report } = await oracleReport();
    const v2 = {
      ...JSON.parse(bisectJson(report)),
      schemaVersion: 2,
      builds: report.builds.map(({ candidate, build }) => ({ candidate, build })),
    };
    const read = BisectReportSchema.parse(v2);
    expect(read.schemaVersion).toBe(2);
    expect(read.builds).toEqual(report.builds.map((b) => ({ ...b, error: null })));
    // A version-3 report must say for each build whether it failed.
    expect(() => BisectReportSchema.parse({ ...v2, schemaVersion: BISECT_REPORT_SCHEMA_VERSION })).toThrow(
      /builds/,
    );
  });

  it('formats an effect as a change with its interval', () => {
    expect(formatEffect({ ratio: 1.123, lower: 1.1, upper: 1.15, confidence: 0.95, n: 40 })).toBe(
      '+12.3 % [+10.0 %, +15.0 %]',
    );
    expect(formatEffect(null)).toBe('–');
  });
});

describe('one look of a step', () => {
  const builds = ['good', 'cand', 'bad'].map((ref) => ({
    candidate: { kind: 'release' as const, label: ref, ref, commit: null },
    binary: `/opt/b/${ref}/runc`,
  }));
  it('is one target on the bisect stack with one handler per build, only the benchmark, interleaved', () => {
    const c = lookConfig(builds, {
      stack: 'bisect',
      kind: 'runc',
      benchmark: 'operations.container.lifecycle',
      rounds: 20,
      warmup: 1,
    });
    expect(c.targets).toEqual([
      expect.objectContaining({ stack: 'bisect', handlers: ['bisect-good', 'bisect-cand', 'bisect-bad'] }),
    ]);
    expect(c.stack.extraHandlers).toEqual([
      { name: 'bisect-good', binary: '/opt/b/good/runc', kind: 'runc' },
      { name: 'bisect-cand', binary: '/opt/b/cand/runc', kind: 'runc' },
      { name: 'bisect-bad', binary: '/opt/b/bad/runc', kind: 'runc' },
    ]);
    expect([c.benchmarks, c.runs, c.warmup]).toEqual([['operations.container.lifecycle'], 20, 1]);
    expect(handlerNames(2)).toEqual(['bisect-good', 'bisect-bad']);
    expect(() => handlerNames(4)).toThrow(/2 or 3 builds/);
  });
  it('reads the metric of each handler from a real result, in handler order', () => {
    const file = join(
      import.meta.dirname,
      '..',
      '..',
      'fixtures',
      'results',
      'runc-vs-crun-containerd-1.6.20-a.json',
    );
    const result = parseResult(readFileSync(file, 'utf8'), file);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as typeof result;
    const samplesOf = (target: string) =>
      raw.results
        .find((r) => r.target === target && r.benchmark === 'operations.container.lifecycle')!
        .metrics.find((m) => m.name === 'StartContainer')!.samples;
    const r = lookSamples(result, ['crun', 'runc'], 'operations.container.lifecycle', 'StartContainer');
    expect(r.samples).toEqual([samplesOf('containerd/crun'), samplesOf('containerd/runc')]);
    expect(r.note).toBeNull();
    // A failed repetition on one side: rounds kept to the shorter, and said.
    const short = structuredClone(result);
    const m = short.results
      .find((x) => x.target === 'containerd/runc' && x.benchmark === 'operations.container.lifecycle')!
      .metrics.find((x) => x.name === 'StartContainer')!;
    m.samples = m.samples.slice(0, 29);
    const cut = lookSamples(short, ['crun', 'runc'], 'operations.container.lifecycle', 'StartContainer');
    expect(cut.samples.map((s) => s.length)).toEqual([29, 29]);
    expect(cut.note).toMatch(/crun 30, runc 29/);
    expect(() => lookSamples(result, ['youki'], 'operations.container.lifecycle', 'StartContainer')).toThrow(
      /no target with handler youki/,
    );
    expect(() => lookSamples(result, ['runc'], 'operations.container.lifecycle', 'Nope')).toThrow(
      /no metric Nope/,
    );
  });
});

describe('where a report is kept in a data directory', () => {
  const named = {
    startedAt: '2026-11-27T00:15:02.123+01:00',
    component: 'runc',
    good: '1.1.5',
    bad: '1.2.0',
    metric: 'StartContainer',
  };
  it('is bisections/<UTC date>/<UTC stamp>-<what>.json', () => {
    expect(bisectionId(named)).toBe('20261126T231502Z-runc-1.1.5-1.2.0-StartContainer');
    expect(relativeBisectionPath(named)).toBe(
      '2026/11/26/20261126T231502Z-runc-1.1.5-1.2.0-StartContainer.json',
    );
    expect(bisectionPathInDataDir('/d', named)).toBe(
      '/d/bisections/2026/11/26/20261126T231502Z-runc-1.1.5-1.2.0-StartContainer.json',
    );
  });
  it('shortens commit ends and keeps the id to characters safe in a path and a URL', () => {
    const id = bisectionId({ ...named, good: 'a'.repeat(40), bad: 'origin/main', metric: 'a b/c' });
    expect(id).toBe('20261126T231502Z-runc-aaaaaaaaaaaa-origin_main-a_b_c');
  });
});
