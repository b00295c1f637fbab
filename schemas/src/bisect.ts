import { z } from 'zod';
import { BenchmarkNameSchema, IsoDateTimeSchema } from './common.ts';
import { HostFingerprintSchema } from './host.ts';

/**
 * A bisection's report (`runtime-bench bisect`): from "X → Y made metric M slower" to the release
 * and the commit that did it. Every step measured a candidate interleaved with the good and the
 * bad end in one run on one stack, and decided by a sequential test (runner/src/stats/
 * sequential-position.ts); the report keeps every step, so a verdict can be checked afterwards.
 */
export const BISECT_REPORT_SCHEMA_VERSION = 1;

/** A ratio of geometric means (paired by round) with its interval. */
export const RatioIntervalSchema = z.strictObject({
  ratio: z.number().positive(),
  lower: z.number().positive(),
  upper: z.number().positive(),
  confidence: z.number().gt(0).lt(1),
  n: z.int().positive().meta({ description: 'rounds (good, …, bad measured back to back) it comes from' }),
});
export type RatioInterval = z.output<typeof RatioIntervalSchema>;

/** A version the search can build: a release, a commit, or a pseudo-version the user named. */
export const BisectCandidateSchema = z.strictObject({
  kind: z.enum(['release', 'commit']),
  label: z.string().min(1).meta({ description: 'what a person reads: 1.2.0, or a short commit and subject' }),
  ref: z.string().min(1).meta({ description: 'what is built: a version, a commit hash or a pseudo-version' }),
  commit: z.string().nullable().meta({ description: 'the full commit hash when known' }),
});
export type BisectCandidate = z.output<typeof BisectCandidateSchema>;

export const BisectStepSchema = z.strictObject({
  kind: z.enum(['ends', 'candidate']).meta({ description: '"ends": the check that good and bad differ' }),
  candidate: BisectCandidateSchema,
  attempt: z.int().positive().meta({ description: '2 for the re-measurement of an unclear step' }),
  verdict: z.enum(['good', 'bad', 'between', 'unclear', 'differ', 'same', 'opposite']).meta({
    description: 'between: the candidate differs from both ends (a partial change); unclear: neither shown',
  }),
  rounds: z.int().nonnegative(),
  looks: z.int().nonnegative().meta({ description: 'looks of the sequential test taken before it stopped' }),
  alphaPerLook: z.number().gt(0).lt(1),
  pCritical: z
    .number()
    .gt(0)
    .lt(1)
    .meta({ description: 'one-sided p a look had to reach (alpha / looks / 2)' }),
  pBeyondGood: z.number().min(0).max(1).meta({
    description:
      'last look: one-sided signed-rank p that the candidate (ends: bad) lies beyond good the bad way',
  }),
  pShortOfBad: z.number().min(0).max(1).nullable().meta({
    description:
      'last look: one-sided signed-rank p that the candidate lies short of bad (null for the ends)',
  }),
  effect: RatioIntervalSchema.nullable().meta({ description: 'candidate / good (ends: bad / good)' }),
  badVsGood: RatioIntervalSchema.nullable().meta({ description: 'bad / good in the same rounds' }),
  position: z.number().nullable().meta({ description: '0 = like good, 1 = like bad (ln C/G ÷ ln B/G)' }),
  buildSeconds: z.number().nonnegative(),
  measureSeconds: z.number().nonnegative(),
  runIds: z.array(z.string()).meta({ description: 'the runs whose samples the step used (one per look)' }),
});
export type BisectStep = z.output<typeof BisectStepSchema>;

export const BisectReportSchema = z
  .strictObject({
    schemaVersion: z.literal(BISECT_REPORT_SCHEMA_VERSION),
    startedAt: IsoDateTimeSchema,
    finishedAt: IsoDateTimeSchema,
    tool: z.strictObject({ name: z.literal('runtime-bench'), version: z.string().min(1) }),
    host: HostFingerprintSchema.nullable(),
    component: z.string().min(1),
    good: z.string().min(1),
    bad: z.string().min(1),
    benchmark: BenchmarkNameSchema,
    metric: z.string().min(1),
    direction: z.enum(['slower', 'faster']).meta({ description: 'which way bad differs from good' }),
    method: z.strictObject({
      alpha: z.number().gt(0).lt(1).meta({ description: 'error rate of one step’s whole sequential test' }),
      roundsPerLook: z.int().positive(),
      maxLooks: z.int().positive(),
      maxAttempts: z.int().positive(),
      test: z.string().min(1),
    }),
    outcome: z.enum(['found', 'no-difference', 'opposite', 'budget-exhausted', 'ambiguous', 'failed']),
    message: z.string().meta({ description: 'one sentence saying what was found, or why not' }),
    lastGoodRelease: z.string().nullable(),
    firstBadRelease: z.string().nullable(),
    lastGoodCommit: BisectCandidateSchema.nullable(),
    firstBadCommit: BisectCandidateSchema.nullable(),
    skippedBetween: z
      .array(BisectCandidateSchema)
      .meta({ description: 'unclear twice: the culprit may be any of these' }),
    effect: RatioIntervalSchema.nullable().meta({ description: 'bad / good from the check of the ends' }),
    steps: z.array(BisectStepSchema),
    spent: z.strictObject({
      builds: z.int().nonnegative(),
      buildMinutes: z.number().nonnegative(),
      runnerMinutes: z.number().nonnegative().meta({ description: 'time spent measuring' }),
      totalMinutes: z.number().nonnegative(),
      budgetMinutes: z.number().positive().nullable(),
    }),
  })
  .meta({ title: 'runtime-bench bisection report' });
export type BisectReport = z.output<typeof BisectReportSchema>;
