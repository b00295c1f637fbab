// Issue 38: a report keeps what its steps found — the narrowest range reached, on success, on
// failure and when the budget ends — computed from the step list alone.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BisectReportSchema, type BisectCandidate, type BisectStep } from '@runtime-bench/schemas';
import { bisect, BisectStopped } from '../../../src/bisect/bisect.ts';
import { narrowestRange, NOTHING_FOUND } from '../../../src/bisect/range.ts';
import { createRng } from '../../../src/stats/index.ts';
import {
  containsCulprit,
  gaussian,
  makeHistory,
  oracleDeps,
  oracleOptions,
} from '../../support/bisect-oracle.ts';

const release = (v: string): BisectCandidate => ({ kind: 'release', label: v, ref: v, commit: null });
const commit = (c: string): BisectCandidate => ({ kind: 'commit', label: c, ref: c, commit: c });
const step = (
  kind: BisectStep['kind'],
  candidate: BisectCandidate,
  verdict: BisectStep['verdict'],
  outsideEnds = false,
): BisectStep => ({
  kind,
  candidate,
  verdict,
  outsideEnds,
  attempt: 1,
  rounds: 20,
  looks: 1,
  alphaPerLook: 0.001,
  threshold: 0.05,
  effect: null,
  badVsGood: null,
  badVsCandidate: null,
  position: null,
  buildSeconds: 0,
  measureSeconds: 0,
  runIds: [],
});
const ends = { good: release('1.0.0'), bad: release('1.4.0'), releases: true };
const differ = step('ends', release('1.4.0'), 'differ');

describe('narrowestRange', () => {
  it('finds nothing before the ends were shown to differ', () => {
    expect(narrowestRange(ends, [])).toEqual(NOTHING_FOUND);
    expect(narrowestRange(ends, [step('ends', release('1.4.0'), 'same')])).toEqual(NOTHING_FOUND);
  });

  it('is the ends once they differ, then the latest release judged good and the latest judged bad', () => {
    expect(narrowestRange(ends, [differ])).toEqual({
      ...NOTHING_FOUND,
      lastGoodRelease: '1.0.0',
      firstBadRelease: '1.4.0',
    });
    const steps = [
      differ,
      step('candidate', release('1.2.0'), 'good'),
      step('candidate', release('1.3.0'), 'unclear'),
      step('candidate', release('1.3.0'), 'between'),
      step('candidate', release('1.3.5'), 'bad'),
      step('candidate', release('1.3.2'), 'good'),
    ];
    expect(narrowestRange(ends, steps)).toEqual({
      ...NOTHING_FOUND,
      lastGoodRelease: '1.3.2',
      firstBadRelease: '1.3.5',
    });
  });

  it('among commits: the latest judged each way, the bounding release standing for a side not judged yet', () => {
    const releases = [
      differ,
      step('candidate', release('1.2.0'), 'good'),
      step('candidate', release('1.3.0'), 'bad'),
    ];
    expect(narrowestRange(ends, [...releases, step('candidate', commit('c5'), 'good')])).toEqual({
      lastGoodRelease: '1.2.0',
      firstBadRelease: '1.3.0',
      lastGoodCommit: commit('c5'),
      firstBadCommit: release('1.3.0'),
    });
    expect(
      narrowestRange(ends, [
        ...releases,
        step('candidate', commit('c5'), 'good'),
        step('candidate', commit('c8'), 'bad'),
        step('candidate', commit('c6'), 'good'),
      ]),
    ).toMatchObject({ lastGoodCommit: commit('c6'), firstBadCommit: commit('c8') });
  });

  it('leaves out a step outside the ends’ span: it is evidence of nothing', () => {
    const steps = [
      differ,
      step('candidate', release('1.2.0'), 'good'),
      step('candidate', release('1.3.0'), 'bad', true),
    ];
    expect(narrowestRange(ends, steps)).toMatchObject({ lastGoodRelease: '1.2.0', firstBadRelease: '1.4.0' });
  });

  it('commit ends, or commits the user named, have no release range', () => {
    const commitEnds = { good: commit('g'), bad: commit('b'), releases: false };
    const e = step('ends', commit('b'), 'differ');
    expect(narrowestRange(commitEnds, [e])).toEqual({
      ...NOTHING_FOUND,
      lastGoodCommit: commit('g'),
      firstBadCommit: commit('b'),
    });
    expect(narrowestRange(commitEnds, [e, step('candidate', commit('x'), 'bad')])).toMatchObject({
      lastGoodCommit: commit('g'),
      firstBadCommit: commit('x'),
    });
  });
});

const quiet = (sigma: number) => (rng: ReturnType<typeof createRng>) => Math.exp(sigma * gaussian(rng));

describe('a walk’s report keeps the narrowest range it reached', () => {
  const h = makeHistory({ commits: 40, every: 8, culprit: (c) => c[19]!.hash, factor: 1.3 });
  const options = (over = {}) => oracleOptions(h, { alpha: 0.02, roundsPerLook: 10, maxLooks: 5, ...over });
  /** The index in history of what a candidate was built from. */
  const at = (c: BisectCandidate) =>
    c.kind === 'release'
      ? h.releases.find((r) => r.version === c.ref)!.commit
      : h.commits.findIndex((x) => x.hash === c.ref);

  it('when a run fails part way into the commits', async () => {
    const deps = oracleDeps(h, createRng(11), quiet(0.05));
    const measure = deps.measure;
    let commitSteps = 0;
    deps.measure = async (builds, rounds) => {
      if (builds.length === 3 && builds[1]!.candidate.kind === 'commit' && ++commitSteps > 2)
        throw new Error('the CRI endpoint went away');
      return measure(builds, rounds);
    };
    const stopped = await bisect(options(), deps).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(BisectStopped);
    const walk = (stopped as BisectStopped).walk;
    expect(walk.outcome).toBe('failed');
    expect(walk).toMatchObject({ lastGoodRelease: '1.2.0', firstBadRelease: '1.3.0' });
    // Two commit steps were judged: the range is narrower than the releases, and holds the culprit.
    const { lastGoodCommit: lo, firstBadCommit: hi } = walk;
    expect(lo).not.toBeNull();
    expect(hi).not.toBeNull();
    expect(containsCulprit(h, lo!.ref)).toBe(false);
    expect(containsCulprit(h, hi!.ref)).toBe(true);
    expect(at(hi!) - at(lo!)).toBeLessThan(24 - 16);
    expect(walk.steps.filter((s) => s.kind === 'candidate' && s.candidate.kind === 'commit')).toHaveLength(2);
  });

  it('when the budget ends among the commits', async () => {
    // 2 + 2 builds and 3 steps of releases and ends, then the commits: stopped part way.
    const r = await bisect(options({ budgetMinutes: 9 }), oracleDeps(h, createRng(12), quiet(0.05)));
    expect(r.outcome).toBe('budget-exhausted');
    expect(r).toMatchObject({ lastGoodRelease: '1.2.0', firstBadRelease: '1.3.0' });
    const judged = r.steps.filter((s) => s.kind === 'candidate' && s.candidate.kind === 'commit');
    expect(judged.length).toBeGreaterThan(0);
    if (r.lastGoodCommit) expect(containsCulprit(h, r.lastGoodCommit.ref)).toBe(false);
    if (r.firstBadCommit) expect(containsCulprit(h, r.firstBadCommit.ref)).toBe(true);
    expect(r.message).toContain(`after ${r.lastGoodCommit!.label} up to ${r.firstBadCommit!.label}`);
  });
});

describe('the reports in data/bisections', () => {
  const dir = join(import.meta.dirname, '..', '..', '..', '..', 'data', 'bisections');
  const all = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.json'));
  // The reports written before version 2 (2026-11-27); later ones are read by their own version.
  const files = all.filter((f) => f.startsWith('2026/11/27/'));
  it('holds the two version-1 reports of 2026-11-27', () => expect(files).toHaveLength(2));
  it.each(all.filter((f) => !files.includes(f)))(
    '%s (later): a current report whose every step names runs that are in data/runs',
    (file) => {
      const r = BisectReportSchema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
      expect(r.schemaVersion).toBeGreaterThanOrEqual(3);
      expect(r.tool.gitCommit).toMatch(/^[0-9a-f]{40}$/);
      const runs = join(dir, '..', 'runs');
      const ids = new Set(
        (readdirSync(runs, { recursive: true }) as string[])
          .filter((f) => f.endsWith('.json'))
          .map((f) =>
            f
              .split('/')
              .at(-1)!
              .replace(/\.json$/, ''),
          ),
      );
      for (const step of r.steps) {
        expect(step.runIds.length).toBeGreaterThan(0);
        for (const id of step.runIds) expect(ids.has(id), id).toBe(true);
      }
    },
  );
  it.each(files)('%s still reads (schema version 1, in the version-2 shape)', (file) => {
    const report = BisectReportSchema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    expect(report.schemaVersion).toBe(1);
    expect(report.tool.gitCommit).toBeNull();
    expect(report.steps.every((s) => s.threshold === null && !s.outsideEnds)).toBe(true);
  });

  it('the runc 1.1.10 → 1.2.0 report that ended failed with no range: its steps had narrowed it', () => {
    const file = files.find((f) => f.includes('runc-1.1.10-1.2.0'))!;
    const r = BisectReportSchema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    expect([r.outcome, r.lastGoodRelease, r.lastGoodCommit]).toEqual(['failed', null, null]);
    // What the issue read off its step list by hand: 1.1.13–1.1.15 good, then the commits
    // 628256245e0e good and 9d2842debb8f bad.
    const found = narrowestRange({ good: release(r.good), bad: release(r.bad), releases: true }, r.steps);
    expect(found.lastGoodRelease).toBe('1.1.15');
    expect(found.firstBadRelease).toBe('1.2.0');
    expect(found.lastGoodCommit?.ref.slice(0, 12)).toBe('628256245e0e');
    expect(found.firstBadCommit?.ref.slice(0, 12)).toBe('9d2842debb8f');
  });

  it('a malformed report fails naming the field', () => {
    const file = join(dir, files[0]!);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(() => BisectReportSchema.parse({ ...raw, outcome: 'maybe' })).toThrow(/outcome/);
    expect(() => BisectReportSchema.parse({ ...raw, schemaVersion: 9 })).toThrow(/schemaVersion/);
  });
});
