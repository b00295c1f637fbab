import { z } from 'zod';
import { BenchmarkNameSchema, IsoDateTimeSchema } from './common.ts';
import { HostFingerprintSchema } from './host.ts';
import { ComponentBuildSchema } from './result.ts';

/**
 * A bisection's report (`runtime-bench bisect`): from "X → Y made metric M slower" to the release
 * and the commit that did it. Every step measured a candidate interleaved with the good and the
 * bad end in one run on one stack; the report keeps every step, so a verdict can be checked afterwards.
 *
 * Version 3 (written now): every build record says whether the candidate built: `error` holds
 * why one did not (its `build` is then the recipe it ran, its builtAt when it failed), so a
 * bisection stopped or skipping at a build says which recipe and Go it tried. Version 2 is read
 * with `error` null on every build (a version-2 report recorded only the builds that succeeded).
 *
 * Version 2: a step's verdict is read off its printed intervals and threshold
 * (runner/src/stats/position-decision.ts), so a step keeps the intervals at the level it was decided
 * at, the threshold and bad / candidate; the tool's commit; every build's record; the outcome
 * "non-monotonic"; and last good / first bad always hold the narrowest range the steps reached.
 * Version 1 (signed-rank p values against a critical p, 95 % intervals beside them) is still read:
 * BisectReportSchema turns it into the version-2 shape (fields it lacks are null or empty) and
 * keeps its schemaVersion 1, so a reader can tell.
 */
export const BISECT_REPORT_SCHEMA_VERSION = 3;
export const READABLE_BISECT_REPORT_SCHEMA_VERSIONS = [1, 2, 3] as const;

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

const stepCommon = {
  kind: z.enum(['ends', 'candidate']).meta({ description: '"ends": the check that good and bad differ' }),
  candidate: BisectCandidateSchema,
  attempt: z.int().positive().meta({ description: '2 for the re-measurement of an unclear step' }),
  verdict: z.enum(['good', 'bad', 'between', 'unclear', 'differ', 'same', 'opposite']).meta({
    description: 'between: the candidate differs from both ends (a partial change); unclear: neither shown',
  }),
  rounds: z.int().nonnegative(),
  looks: z.int().nonnegative().meta({ description: 'looks of the sequential test taken before it stopped' }),
  alphaPerLook: z.number().gt(0).lt(1),
  effect: RatioIntervalSchema.nullable().meta({ description: 'candidate / good (ends: bad / good)' }),
  badVsGood: RatioIntervalSchema.nullable().meta({ description: 'bad / good in the same rounds' }),
  position: z.number().nullable().meta({ description: '0 = like good, 1 = like bad (ln C/G ÷ ln B/G)' }),
  buildSeconds: z.number().nonnegative(),
  measureSeconds: z.number().nonnegative(),
  runIds: z.array(z.string()).meta({ description: 'the runs whose samples the step used (one per look)' }),
};

export const BisectStepSchema = z.strictObject({
  ...stepCommon,
  alphaPerLook: z.number().gt(0).lt(1).meta({
    description: "the intervals' two-sided error level (alpha / looks): they are printed at 1 − this",
  }),
  threshold: z.number().nonnegative().nullable().meta({
    description:
      'τ, the relative change the verdict is read at: half of bad / good for a candidate, 0 for the ends (null: a version-1 report)',
  }),
  effect: RatioIntervalSchema.nullable().meta({
    description: 'candidate / good (ends: bad / good) at the decision’s level',
  }),
  badVsCandidate: RatioIntervalSchema.nullable().meta({
    description: 'bad / candidate at the decision’s level (null for the ends and in a version-1 report)',
  }),
  outsideEnds: z.boolean().meta({
    description:
      'candidate / good lies outside the span of good and bad beyond both intervals: the search stopped (non-monotonic)',
  }),
});
export type BisectStep = z.output<typeof BisectStepSchema>;

/** A version-1 step: signed-rank p values against a critical p, with 95 % intervals beside them. */
const BisectStepV1Schema = z.strictObject({
  ...stepCommon,
  pCritical: z
    .number()
    .gt(0)
    .lt(1)
    .meta({ description: 'one-sided p a look had to reach (alpha / looks / 2)' }),
  pBeyondGood: z.number().min(0).max(1),
  pShortOfBad: z.number().min(0).max(1).nullable(),
});

/** A version-2 build record: only candidates that built were recorded. */
const BisectBuildV2Schema = z.strictObject({
  candidate: BisectCandidateSchema,
  build: ComponentBuildSchema.nullable(),
});

/**
 * How one candidate was built, as the build wrote it (null: installed, or the build said
 * nothing), or why it did not build.
 */
export const BisectBuildSchema = z.strictObject({
  ...BisectBuildV2Schema.shape,
  error: z.string().min(1).nullable().meta({
    description:
      'why the candidate did not build (null: it built); build then holds the recipe it ran, and its builtAt is when it failed',
  }),
});
export type BisectBuild = z.output<typeof BisectBuildSchema>;

export const BISECT_OUTCOMES = [
  'found',
  'no-difference',
  'opposite',
  'budget-exhausted',
  'ambiguous',
  'non-monotonic',
  'failed',
] as const;

const reportCommon = {
  startedAt: IsoDateTimeSchema,
  finishedAt: IsoDateTimeSchema,
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
  message: z.string().meta({ description: 'one sentence saying what was found, or why not' }),
  lastGoodRelease: z.string().nullable(),
  firstBadRelease: z.string().nullable(),
  lastGoodCommit: BisectCandidateSchema.nullable(),
  firstBadCommit: BisectCandidateSchema.nullable(),
  skippedBetween: z
    .array(BisectCandidateSchema)
    .meta({ description: 'unclear twice: the culprit may be any of these' }),
  effect: RatioIntervalSchema.nullable().meta({ description: 'bad / good from the check of the ends' }),
  spent: z.strictObject({
    builds: z.int().nonnegative(),
    buildMinutes: z.number().nonnegative(),
    runnerMinutes: z.number().nonnegative().meta({ description: 'time spent measuring' }),
    totalMinutes: z.number().nonnegative(),
    budgetMinutes: z.number().positive().nullable(),
  }),
};

const reportV2 = {
  ...reportCommon,
  tool: z.strictObject({
    name: z.literal('runtime-bench'),
    version: z.string().min(1),
    gitCommit: z.string().nullable().meta({
      description:
        'the commit runtime-bench ran from ("+dirty" with uncommitted changes; null outside a checkout)',
    }),
  }),
  outcome: z.enum(BISECT_OUTCOMES),
  lastGoodRelease: reportCommon.lastGoodRelease.meta({
    description:
      'the newest release a step judged good (the good end before any): the narrowest range reached',
  }),
  firstBadRelease: reportCommon.firstBadRelease.meta({
    description: 'the oldest release a step judged bad (the bad end before any)',
  }),
  builds: z.array(BisectBuildV2Schema),
  steps: z.array(BisectStepSchema),
};

/** The report as `runtime-bench bisect` writes it now (version 3). */
export const BisectReportV3Schema = z
  .strictObject({
    ...reportV2,
    schemaVersion: z.literal(BISECT_REPORT_SCHEMA_VERSION),
    builds: z.array(BisectBuildSchema).meta({
      description: 'every candidate built or tried, once, in build order (error: it did not build)',
    }),
  })
  .meta({ title: 'runtime-bench bisection report' });

const BisectReportV2Schema = z.strictObject({ ...reportV2, schemaVersion: z.literal(2) });

const BisectReportV1Schema = z.strictObject({
  schemaVersion: z.literal(1),
  ...reportCommon,
  tool: z.strictObject({ name: z.literal('runtime-bench'), version: z.string().min(1) }),
  outcome: z.enum(['found', 'no-difference', 'opposite', 'budget-exhausted', 'ambiguous', 'failed']),
  steps: z.array(BisectStepV1Schema),
});
type BisectReportV1 = z.output<typeof BisectReportV1Schema>;
type BisectReportV2 = z.output<typeof BisectReportV2Schema>;
/** A report as `runtime-bench bisect` writes it now. */
export type BisectReportV3 = z.output<typeof BisectReportV3Schema>;
type Current<V extends number> = Omit<BisectReportV3, 'schemaVersion'> & { schemaVersion: V };

/** A version-2 report in the version-3 shape: every build it recorded had built. */
function fromVersion2(r: BisectReportV2): Current<2> {
  return { ...r, builds: r.builds.map((b) => ({ ...b, error: null })) };
}

/** A version-1 report in the version-3 shape: what it did not record is null or empty. */
function fromVersion1(r: BisectReportV1): Current<1> {
  return {
    ...r,
    tool: { ...r.tool, gitCommit: null },
    builds: [],
    steps: r.steps.map(({ pCritical: _c, pBeyondGood: _g, pShortOfBad: _b, ...s }) => ({
      ...s,
      threshold: null,
      badVsCandidate: null,
      outsideEnds: false,
    })),
  };
}

/**
 * Reads a report of any readable version (by its schemaVersion; a malformed one fails naming the
 * field): an older report comes out in the version-3 shape and keeps its schemaVersion.
 */
export const BisectReportSchema = z.discriminatedUnion('schemaVersion', [
  BisectReportV3Schema,
  BisectReportV2Schema.transform(fromVersion2),
  BisectReportV1Schema.transform(fromVersion1),
]);
export type BisectReport = z.output<typeof BisectReportSchema>;
