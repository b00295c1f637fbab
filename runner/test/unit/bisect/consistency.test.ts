// Issue 38: a candidate that measures outside the span of the ends stops the search
// ("non-monotonic"), and the report says what differs between the builds.
import { describe, expect, it } from 'vitest';
import type { BisectCandidate, ComponentBuild, RatioInterval } from '@runtime-bench/schemas';
import { bisect } from '../../../src/bisect/bisect.ts';
import { buildDifferences, nonMonotonicMessage, outsideEndsSpan } from '../../../src/bisect/consistency.ts';
import { createRng } from '../../../src/stats/index.ts';
import { gaussian, makeHistory, oracleDeps, oracleOptions } from '../../support/bisect-oracle.ts';

const ratio = (r: number, lower: number, upper: number): RatioInterval => ({
  ratio: r,
  lower,
  upper,
  confidence: 0.999,
  n: 100,
});

describe('outsideEndsSpan', () => {
  const bg = ratio(1.061, 1.03, 1.092); // the runc 1.1.10 → 1.2.0 ends: +6.1 %
  it('the report’s two commits: −6.8 % and +16.0 % against good, beyond both intervals', () => {
    expect(outsideEndsSpan(ratio(0.932, 0.904, 0.961), bg)).toBe(true);
    expect(outsideEndsSpan(ratio(1.16, 1.122, 1.198), bg)).toBe(true);
  });
  it('inside the span, or reaching into it with its interval, is not outside', () => {
    expect(outsideEndsSpan(ratio(1.0, 0.98, 1.02), bg)).toBe(false);
    expect(outsideEndsSpan(ratio(1.06, 1.04, 1.08), bg)).toBe(false);
    expect(outsideEndsSpan(ratio(0.97, 0.94, 1.001), bg)).toBe(false);
    // Beyond bad's estimate but not beyond its interval's end.
    expect(outsideEndsSpan(ratio(1.1, 1.091, 1.11), bg)).toBe(false);
  });
  it('read off the paired intervals of the same rounds: significantly short of good, or beyond bad', () => {
    // Inside the span by candidate / good's interval, but faster than good beyond its interval …
    expect(outsideEndsSpan(ratio(0.985, 0.975, 0.995), ratio(1.061, 0.97, 1.15))).toBe(true);
    // … or slower than bad beyond bad / candidate's interval (bad / candidate below 1).
    const wide = ratio(1.061, 0.98, 1.15);
    expect(outsideEndsSpan(ratio(1.1, 1.02, 1.19), wide, ratio(0.96, 0.93, 0.99))).toBe(true);
    expect(outsideEndsSpan(ratio(1.1, 1.02, 1.19), wide, ratio(0.96, 0.93, 1.01))).toBe(false);
    expect(outsideEndsSpan(ratio(1.1, 1.02, 1.19), wide)).toBe(false);
  });

  it('an improvement hunted down: the span runs below 1', () => {
    const faster = ratio(0.9, 0.88, 0.92);
    expect(outsideEndsSpan(ratio(0.8, 0.78, 0.82), faster)).toBe(true);
    expect(outsideEndsSpan(ratio(1.05, 1.02, 1.08), faster)).toBe(true);
    expect(outsideEndsSpan(ratio(0.95, 0.93, 0.97), faster)).toBe(false);
    // Faster than bad beyond bad / candidate's interval (above 1 here).
    expect(outsideEndsSpan(ratio(0.88, 0.8, 0.97), ratio(0.9, 0.85, 0.95), ratio(1.03, 1.01, 1.05))).toBe(
      true,
    );
  });
});

const record = (over: Partial<ComponentBuild> = {}): ComponentBuild => ({
  source: 'git',
  origin: '/src/runc@v1.1.15',
  commit: 'a'.repeat(40),
  toolchain: 'go1.22.12',
  command: ['go build -trimpath -tags seccomp -ldflags -X main.version=1.1.15 -o runc .'],
  env: { CGO_ENABLED: '1' },
  stamps: { 'main.version': '1.1.15' },
  deps: {},
  rules: [],
  notes: [],
  builtAt: '2026-11-27T00:00:00Z',
  ...over,
});

describe('buildDifferences', () => {
  it('nothing but the version stamps and the source commit: no difference', () => {
    const other = record({
      origin: '/src/runc@abc',
      commit: 'b'.repeat(40),
      command: ['go build -trimpath -tags seccomp -ldflags -X main.version=1.1.0+dev -o runc .'],
      stamps: { 'main.version': '1.1.0+dev' },
    });
    expect(buildDifferences(record(), other)).toEqual([]);
  });
  it('names the toolchain, the source, the recipe’s rules, env and steps', () => {
    const other = record({
      source: 'go',
      toolchain: 'go1.21.13',
      rules: ['go generate ./libcontainer/dmz (Makefile runc-dmz)'],
      env: { CGO_ENABLED: '0' },
      command: ['go generate ./libcontainer/dmz', 'go build -trimpath -o runc .'],
    });
    const d = buildDifferences(record(), other);
    expect(d).toHaveLength(5);
    expect(d[0]).toBe('source git vs go');
    expect(d[1]).toBe('toolchain go1.22.12 vs go1.21.13');
    expect(d[2]).toContain('go generate ./libcontainer/dmz (Makefile runc-dmz)');
    expect(d[3]).toBe('build env [CGO_ENABLED=1] vs [CGO_ENABLED=0]');
    expect(d[4]).toMatch(/^recipe commands /);
  });
});

describe('nonMonotonicMessage', () => {
  const c = (label: string): BisectCandidate => ({ kind: 'release', label, ref: label, commit: null });
  const step = {
    candidate: c('628256245e0e'),
    effect: ratio(0.932, 0.904, 0.961),
    badVsGood: ratio(1.061, 1.03, 1.092),
  };
  it('says where the candidate lies and what differs in its build', () => {
    const m = nonMonotonicMessage(step, {
      good: { candidate: c('1.1.10'), record: record() },
      candidate: { candidate: step.candidate, record: record({ toolchain: 'go1.21.13' }) },
      bad: { candidate: c('1.2.0'), record: record() },
    });
    expect(m).toMatch(
      /^non-monotonic: 628256245e0e measures −6\.8 % \[−9\.6 %, −3\.9 %\] against good, short of good/,
    );
    expect(m).toContain("its build differs from good's (1.1.10): toolchain go1.22.12 vs go1.21.13");
    expect(m).toContain("its build differs from bad's (1.2.0): toolchain go1.22.12 vs go1.21.13");
  });
  it('with matching records: a second change, or drift', () => {
    const m = nonMonotonicMessage(
      { ...step, effect: ratio(1.16, 1.122, 1.198) },
      {
        good: { candidate: c('1.1.10'), record: record() },
        candidate: { candidate: step.candidate, record: record() },
        bad: { candidate: c('1.2.0'), record: record() },
      },
    );
    expect(m).toContain('beyond bad');
    expect(m).toContain('the three build records match');
  });
  it('without records: says it cannot tell', () => {
    const m = nonMonotonicMessage(step, {
      good: { candidate: c('1.1.10'), record: null },
      candidate: { candidate: step.candidate, record: record() },
      bad: { candidate: c('1.2.0'), record: null },
    });
    expect(m).toContain('no build records to compare');
  });
});

describe('a walk whose commits are built unlike its releases', () => {
  const quiet = (rng: ReturnType<typeof createRng>) => Math.exp(0.03 * gaussian(rng));
  it('stops as non-monotonic at the first commit outside the span, naming the toolchain that differs', async () => {
    const h = makeHistory({ commits: 40, every: 8, culprit: (c) => c[19]!.hash, factor: 1.1 });
    // Commits measure 25 % slower than releases of the same code (another recipe), and there is
    // no way to rebuild the ends as commits.
    const deps = oracleDeps(h, createRng(21), quiet, 0.02, undefined, 1.25);
    delete deps.releaseCommit;
    const build = deps.build;
    deps.build = async (c) => ({
      ...(await build(c)),
      record: record({ toolchain: c.kind === 'commit' ? 'go1.21.13' : 'go1.22.12' }),
    });
    const r = await bisect(oracleOptions(h, { alpha: 0.02, roundsPerLook: 10, maxLooks: 5 }), deps);
    expect(r.outcome).toBe('non-monotonic');
    const last = r.steps.at(-1)!;
    expect(last).toMatchObject({ kind: 'candidate', outsideEnds: true, candidate: { kind: 'commit' } });
    expect(r.message).toContain('beyond bad');
    expect(r.message).toContain('toolchain go1.22.12 vs go1.21.13');
    // What the releases found is kept; the commit outside the span is no evidence.
    expect(r).toMatchObject({
      lastGoodRelease: '1.2.0',
      firstBadRelease: '1.3.0',
      lastGoodCommit: null,
      firstBadCommit: null,
    });
    expect(r.builds.find((b) => b.candidate.ref === last.candidate.ref)?.build?.toolchain).toBe('go1.21.13');
  });

  it('rebuilding the ends as commits (one recipe) finds the culprit despite the offset', async () => {
    const h = makeHistory({ commits: 40, every: 8, culprit: (c) => c[19]!.hash, factor: 1.1 });
    const deps = oracleDeps(h, createRng(21), quiet, 0.02, undefined, 1.25);
    const r = await bisect(oracleOptions(h, { alpha: 0.02, roundsPerLook: 10, maxLooks: 5 }), deps);
    expect(r.outcome).toBe('found');
    expect(r.firstBadCommit?.ref).toBe(h.culprit);
  });

  it('stops when the ends rebuilt as commits do not differ although the releases do', async () => {
    const h = makeHistory({ commits: 40, every: 8, culprit: (c) => c[19]!.hash, factor: 1.2 });
    const deps = oracleDeps(h, createRng(22), quiet, 0.02);
    const measure = deps.measure;
    // Built as commits, the bad end measures like the good one: the difference was the recipe's.
    deps.measure = async (builds, rounds) => {
      const m = await measure(builds, rounds);
      if (builds.length === 2 && builds[1]!.candidate.kind === 'commit')
        m.samples[1] = m.samples[1]!.map((v) => v / 1.2);
      return m;
    };
    const r = await bisect(oracleOptions(h, { alpha: 0.02, roundsPerLook: 10, maxLooks: 5 }), deps);
    expect(r.outcome).toBe('non-monotonic');
    expect(r.message).toMatch(
      /built as commits, .* does not differ from .*, though the releases 1\.3\.0 and 1\.2\.0 differ/,
    );
    expect(r).toMatchObject({ lastGoodRelease: '1.2.0', firstBadRelease: '1.3.0' });
  });
});
