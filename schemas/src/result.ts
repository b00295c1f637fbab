import { z } from 'zod';
import { BenchmarkNameSchema, DirectionSchema, IsoDateTimeSchema, UnitSchema } from './common.ts';
import { ConfigSchema, TransportSchema } from './config.ts';
import { HostFingerprintSchema } from './host.ts';
import { RUN_STATUSES } from './run-status.ts';
import { SummarySchema } from './summary.ts';
import { DIRTY_COMMIT_SUFFIX } from './tool.ts';
import {
  checkRunStatus,
  checkRunTimes,
  checkSampleSigns,
  checkSourceCounts,
  checkSummary,
  checkUnique,
} from './result-checks.ts';

/**
 * Bumped on every change of the contract; readers refuse versions they do not know. 2 added
 * kubernetes targets (transport "kubernetes", `target.kubernetes`): every version-1 file is a valid
 * version-2 file, so both are read. 3 added `MetricResult.sources` (which source of which resolution
each sample came from: overhead.runtime's helpers in ns or in ticks); older files are valid version-3
files without it. 4 added `Component.build` (how a component built from source was built); older
files are valid version-4 files without it. 5 added the engine targets' choice of nerdctl's
containerd (`config.targets[].containerd`) and configs that mix CRI and engine targets in one run;
every older file is a valid version-5 file. 6 added the run status `partial` (the run went to its
end, but a benchmark × target measured nothing: run-status.ts) and holds `complete` to mean that
every benchmark × target measured; older files are read unchanged, and readers state their status
with effectiveRunStatus(). 7 added `config.roundOrder` (fixed or shuffled within a round) and
`config.versionChanges` (the pairs of targets measured side by side as a version change); older
files are valid version-7 files with the defaults (fixed order, no declared pair). The config's
values were also tightened in 7 (an image reference with a space or a leading "-", a subnet out of
range, an engine label with "/", a containerd version with "/" or ".."): such values were never
written by a real run (none in data/), and an older file holding one is refused naming the field.
8 added the build source `debian-source` (crun built from the Debian archive's copy of its release
tarball); older files are valid version-8 files. `runtime-bench` writes 8.
 */
export const RESULT_SCHEMA_VERSION = 8;
export const READABLE_RESULT_SCHEMA_VERSIONS = [1, 2, 3, 4, 5, 6, 7, 8] as const;

/** How a component built from source was built: enough to rebuild it and to see it matches the release. */
export const ComponentBuildSchema = z.strictObject({
  source: z.enum(['go', 'cargo', 'git', 'debian-source']),
  origin: z
    .string()
    .min(1)
    .meta({ description: 'module@version, crate@version, <checkout>@<ref> or a tarball with its sha256' }),
  commit: z.string().nullable().meta({ description: 'the source commit, when known' }),
  toolchain: z.string().min(1).meta({ description: 'e.g. go1.22.12, gcc-12.2.0' }),
  command: z.array(z.string()).meta({ description: 'every build command, as argv joined by spaces' }),
  env: z.record(z.string(), z.string()).meta({ description: 'the build variables that shape the output' }),
  stamps: z.record(z.string(), z.string()).meta({ description: 'version stamps, e.g. main.version' }),
  deps: z.record(z.string(), z.string()).meta({ description: 'Debian build dependencies → version' }),
  rules: z
    .array(z.string())
    .meta({ description: "the recipe's rules applied to this version, with their upstream source" }),
  notes: z.array(z.string()).meta({ description: 'known differences from the upstream release build' }),
  builtAt: z.string(),
});
export type ComponentBuild = z.output<typeof ComponentBuildSchema>;

export const ComponentSchema = z.strictObject({
  name: z.string().min(1).meta({ description: 'e.g. containerd, runc, crun, sysbench, catatonit' }),
  role: z.enum(['cri', 'oci', 'shim', 'workload', 'image', 'tool']),
  version: z.string().min(1).meta({ description: 'version as reported by the component itself' }),
  path: z.string().optional(),
  detail: z.string().optional().meta({ description: 'the raw version output or image digest' }),
  build: ComponentBuildSchema.optional().meta({
    description: 'present when runtime-bench built it from source',
  }),
});
export type Component = z.output<typeof ComponentSchema>;

/** One CRI runtime × one runtime handler: the unit every number belongs to. */
export const TargetSchema = z.strictObject({
  id: z.string().min(1).meta({ description: 'unique within a run, e.g. "containerd/runc"' }),
  cri: z.strictObject({
    name: z.string().min(1),
    version: z.string().min(1),
    apiVersion: z.string().min(1),
    endpoint: z.string().min(1),
  }),
  handler: z.string().min(1),
  oci: z.strictObject({
    name: z.string().min(1).meta({ description: 'runc, crun, youki, runsc, kata, …' }),
    version: z.string().min(1),
    path: z.string().nullable(),
  }),
  transport: z.union([TransportSchema, z.literal('kubernetes'), z.literal('engine')]).meta({
    description:
      "how the numbers were taken: CRI over grpc or crictl, pods through a Kubernetes cluster, or an engine's CLI",
  }),
  kubernetes: z
    .strictObject({
      node: z.string().min(1),
      runtimeClass: z.string().min(1),
      kubeletVersion: z.string().min(1),
      containerRuntimeVersion: z
        .string()
        .min(1)
        .meta({ description: 'as the Node reports it, e.g. containerd://2.1.4' }),
    })
    .optional()
    .meta({
      description: 'for a kubernetes target: the node (the host of this result) and the RuntimeClass',
    }),
  engine: z
    .strictObject({
      name: z.string().min(1).meta({ description: 'docker, podman or nerdctl' }),
      version: z.string().min(1),
      storageDriver: z.string().min(1).meta({ description: 'as the engine reports it, e.g. overlay2' }),
      cgroupManager: z.string().min(1).meta({ description: 'cgroupfs or systemd' }),
      networkBackend: z
        .string()
        .min(1)
        .meta({ description: 'bridge driver, cni or netavark; "none" when the runs use no network' }),
    })
    .optional()
    .meta({
      description:
        'for an engine target (Docker, Podman, nerdctl): the engine and its configuration; cri then names the engine too',
    }),
});
export type Target = z.output<typeof TargetSchema>;

export const MetricDefinitionSchema = z.strictObject({
  name: z.string().min(1),
  unit: UnitSchema,
  direction: DirectionSchema,
  description: z.string().min(1),
});

/** The registry entry of a benchmark, copied into each result so consumers need not guess. */
export const BenchmarkDefinitionSchema = z.strictObject({
  name: BenchmarkNameSchema,
  description: z.string().min(1),
  origin: z.array(z.string().min(1)).meta({ description: 'the studies this benchmark comes from' }),
  metrics: z.array(MetricDefinitionSchema).min(1),
});
export type BenchmarkDefinition = z.output<typeof BenchmarkDefinitionSchema>;

export const ErrorsSchema = z.strictObject({
  count: z.int().nonnegative(),
  messages: z.array(z.string()).meta({ description: 'distinct messages, most frequent first, capped' }),
});
export type Errors = z.output<typeof ErrorsSchema>;

export const MetricResultSchema = z
  .strictObject({
    name: z.string().min(1),
    unit: UnitSchema,
    direction: DirectionSchema,
    samples: z.array(z.number()).meta({ description: 'raw measured samples in run order, warm-up excluded' }),
    errors: ErrorsSchema,
    summary: SummarySchema.nullable().meta({
      description: 'statistics of samples; null when there are none',
    }),
    sources: z.record(z.string().min(1), z.int().positive()).optional().meta({
      description:
        'for a metric read from more than one source of different resolution: how many samples came from which (overhead.runtime cpu_time_start: "shim-cgroup", helpers in ns; "ticks", helpers in 10 ms clock ticks); the counts add up to the samples',
    }),
  })
  .refine((m) => (m.summary === null ? m.samples.length === 0 : m.summary.n === m.samples.length), {
    message: 'summary.n must equal the number of samples (and summary is null only without samples)',
    path: ['summary'],
  })
  .superRefine((m, ctx) => {
    checkSampleSigns(m, ctx);
    checkSummary(m.samples, m.summary, ctx);
    checkSourceCounts(m, ctx);
  });
export type MetricResult = z.output<typeof MetricResultSchema>;

export const BenchmarkStatusSchema = z.enum(['ok', 'invalid', 'unsupported', 'failed', 'interrupted']).meta({
  description:
    'ok: measured; invalid: error rate above the threshold; unsupported: the runtime refused the feature; failed: nothing could be measured; interrupted: stopped by a signal',
});

export const BenchmarkResultSchema = z
  .strictObject({
    benchmark: BenchmarkNameSchema,
    target: z.string().min(1).meta({ description: 'id of an entry of targets' }),
    status: BenchmarkStatusSchema,
    reason: z.string().optional().meta({ description: 'why the status is not ok' }),
    parameters: z.record(z.string(), z.unknown()),
    attempts: z.int().nonnegative().meta({ description: 'measured runs attempted (warm-up excluded)' }),
    failedAttempts: z.int().nonnegative(),
    metrics: z.array(MetricResultSchema),
  })
  .superRefine((r, ctx) => {
    if (r.failedAttempts > r.attempts)
      ctx.addIssue({
        code: 'custom',
        path: ['failedAttempts'],
        message: `${r.failedAttempts} failed attempts of ${r.attempts} attempts: at most all of them can fail`,
      });
    checkUnique(
      r.metrics,
      (m) => m.name,
      (i) => ['metrics', i, 'name'],
      (m) => `metric "${m.name}"`,
      'metrics',
      ctx,
    );
  });
export type BenchmarkResult = z.output<typeof BenchmarkResultSchema>;

export const RunResultSchema = z
  .strictObject({
    schemaVersion: z.literal(READABLE_RESULT_SCHEMA_VERSIONS).meta({
      description:
        '7 (written now: config.roundOrder and config.versionChanges); 6 added the run status partial; 1–5 read unchanged, where a run that went to its end is complete even when a benchmark × target measured nothing',
    }),
    runId: z
      .string()
      .regex(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/, { message: 'a run id is <UTC yyyymmddThhmmssZ>-<8 hex digits>' }),
    status: z.enum(RUN_STATUSES).meta({
      description:
        'complete: every benchmark × target was run to its end and measured (or was unsupported or invalid); partial (from schemaVersion 6): the run went to its end, but some benchmark × target measured nothing (status failed); incomplete: the run was stopped before its end (incompleteReason)',
    }),
    incompleteReason: z.string().optional(),
    startedAt: IsoDateTimeSchema,
    finishedAt: IsoDateTimeSchema,
    tool: z.strictObject({
      name: z.literal('runtime-bench'),
      version: z.string().min(1),
      gitCommit: z
        .string()
        .nullable()
        .meta({
          description: `the commit runtime-bench ran from, "${DIRTY_COMMIT_SUFFIX}" appended when its tree had uncommitted changes; null outside a git checkout`,
        }),
      node: z.string().min(1),
    }),
    host: HostFingerprintSchema,
    components: z.array(ComponentSchema),
    config: ConfigSchema,
    configHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    targets: z.array(TargetSchema),
    benchmarks: z.array(BenchmarkDefinitionSchema),
    results: z.array(BenchmarkResultSchema),
  })
  .superRefine((run, ctx) => {
    const targetIds = new Set(run.targets.map((t) => t.id));
    const names = new Set(run.benchmarks.map((b) => b.name));
    run.results.forEach((r, i) => {
      if (!targetIds.has(r.target)) {
        ctx.addIssue({
          code: 'custom',
          path: ['results', i, 'target'],
          message: `unknown target "${r.target}"`,
        });
      }
      if (!names.has(r.benchmark)) {
        ctx.addIssue({
          code: 'custom',
          path: ['results', i, 'benchmark'],
          message: `benchmark "${r.benchmark}" has no entry in benchmarks`,
        });
      }
    });
    run.config.versionChanges.forEach((pair, i) => {
      for (const side of ['before', 'after'] as const)
        if (!targetIds.has(pair[side]))
          ctx.addIssue({
            code: 'custom',
            path: ['config', 'versionChanges', i, side],
            message: `unknown target "${pair[side]}": a version change pairs two targets of the run (name/handler)`,
          });
      if (pair.before === pair.after)
        ctx.addIssue({
          code: 'custom',
          path: ['config', 'versionChanges', i],
          message: `a version change pairs two different targets, not "${pair.before}" with itself`,
        });
    });
    checkRunTimes(run, ctx);
    checkRunStatus(run, ctx);
    checkUnique(
      run.targets,
      (t) => t.id,
      (i) => ['targets', i, 'id'],
      (t) => `target "${t.id}"`,
      'targets',
      ctx,
    );
    checkUnique(
      run.benchmarks,
      (b) => b.name,
      (i) => ['benchmarks', i, 'name'],
      (b) => `benchmark "${b.name}"`,
      'benchmarks',
      ctx,
    );
    checkUnique(
      run.results,
      (r) => JSON.stringify([r.benchmark, r.target]),
      (i) => ['results', i],
      (r) => `the result of ${r.benchmark} on ${r.target}`,
      'results',
      ctx,
    );
    if (run.status === 'incomplete' && !run.incompleteReason) {
      ctx.addIssue({ code: 'custom', path: ['incompleteReason'], message: 'an incomplete run says why' });
    }
  });
export type RunResult = z.output<typeof RunResultSchema>;
