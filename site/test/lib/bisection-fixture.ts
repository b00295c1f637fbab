// A small, schema-valid bisection report for the site's tests (runc 1.1.5 → 1.2.0 in
// CreateContainer, the metric of fixtures.ts' runs). Its numbers are invented: never ship them as
// a measurement. Real reports come from `runtime-bench bisect`.
import { BISECT_REPORT_SCHEMA_VERSION, BisectReportSchema, type BisectReport } from '@runtime-bench/schemas';
import { sampleRunResult } from '../../../schemas/test/sample.ts';
import type { LoadedRun } from '../../src/lib/load.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const ratio = (r: number, lo: number, hi: number, n: number) => ({
  ratio: r,
  lower: lo,
  upper: hi,
  confidence: 0.95,
  n,
});
const release = (v: string) => ({ kind: 'release' as const, label: v, ref: v, commit: null });
const commit = (hex: string, subject: string) => ({
  kind: 'commit' as const,
  label: `${hex.repeat(12)} ${subject}`,
  ref: hex.repeat(40),
  commit: hex.repeat(40),
});
const step = (
  over: Partial<BisectReport['steps'][number]> & Pick<BisectReport['steps'][number], 'candidate' | 'verdict'>,
): BisectReport['steps'][number] => ({
  kind: 'candidate',
  attempt: 1,
  rounds: 40,
  looks: 2,
  alphaPerLook: 0.01 / 15,
  threshold: 0.045,
  effect: ratio(1.01, 0.98, 1.04, 40),
  badVsGood: ratio(1.09, 1.05, 1.13, 40),
  badVsCandidate: ratio(1.08, 1.04, 1.12, 40),
  outsideEnds: false,
  position: 0.1,
  buildSeconds: 60,
  measureSeconds: 90,
  runIds: ['20261127T000000Z-0000aaaa'],
  ...over,
});

export function sampleBisectReport(over: Partial<BisectReport> = {}): BisectReport {
  return BisectReportSchema.parse({
    schemaVersion: BISECT_REPORT_SCHEMA_VERSION,
    startedAt: '2026-11-27T00:15:00.000Z',
    finishedAt: '2026-11-27T00:40:00.000Z',
    tool: { name: 'runtime-bench', version: '0.1.0', gitCommit: null },
    host: sampleRunResult().host,
    component: 'runc',
    good: '1.1.5',
    bad: '1.2.0',
    benchmark: 'operations.container.lifecycle',
    metric: 'CreateContainer',
    direction: 'slower',
    method: { alpha: 0.01, roundsPerLook: 20, maxLooks: 15, maxAttempts: 2, test: 'signed ranks' },
    outcome: 'found',
    message: 'first bad release 1.2.0, first bad commit bbbbbbbbbbbb libct: do more',
    lastGoodRelease: '1.1.15',
    firstBadRelease: '1.2.0',
    lastGoodCommit: commit('a', 'docs: fix'),
    firstBadCommit: commit('b', 'libct: do more'),
    skippedBetween: [],
    effect: ratio(1.09, 1.05, 1.13, 60),
    builds: [],
    steps: [
      step({
        kind: 'ends',
        candidate: release('1.2.0'),
        verdict: 'differ',
        rounds: 60,
        threshold: 0,
        badVsCandidate: null,
        effect: ratio(1.09, 1.05, 1.13, 60),
        position: 1,
        runIds: ['20261127T001600Z-0000bbbb', '20261127T001700Z-0000cccc'],
      }),
      step({ candidate: release('1.1.15'), verdict: 'good' }),
      step({ candidate: commit('a', 'docs: fix'), verdict: 'good' }),
      step({
        candidate: commit('b', 'libct: do more'),
        verdict: 'bad',
        effect: ratio(1.08, 1.04, 1.12, 40),
        position: 0.9,
      }),
    ],
    spent: { builds: 5, buildMinutes: 5, runnerMinutes: 6, totalMinutes: 11, budgetMinutes: null },
    ...over,
  });
}

/** Seven nights of fixtures.ts runs, the last 60 % slower in CreateContainer with runc 1.1.5 → 1.2.0. */
export function regressionRuns(): LoadedRun[] {
  const centers = [50, 50.5, 49.5, 50.2, 49.8, 50.1, 80];
  return loaded(
    ...centers.map((center, i) =>
      makeRun(`2026110${i + 1}T000000Z-0000000${i}`, `2026-11-0${i + 1}T00:00:00Z`, [
        { oci: 'runc', ociVersion: i === 6 ? '1.2.0' : '1.1.5', samples: spread(center) },
      ]),
    ),
  );
}
