import { z } from 'zod';
import { BenchmarkParametersSchema } from './parameters.ts';
import { checkUnique } from './result-checks.ts';

/** The name of a local stack: it becomes a directory name, so nothing that could leave it. */
export const StackNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,30}$/, { message: 'a stack name is lower-case letters, digits and "-"' });

/** How timed CRI calls reach the runtime: in-process gRPC, or one crictl process per call. */
export const TransportSchema = z.enum(['grpc', 'crictl']);
export type Transport = z.output<typeof TransportSchema>;

/**
 * An image reference (`localhost/runtime-bench/bench:latest`, `ghcr.io/o/i@sha256:…`): it is an
 * argument of engine, crictl and kubelet commands, so never one that reads as a flag ("-…") and
 * nothing a reference cannot hold (space, control characters).
 */
export const ImageRefSchema = z
  .string()
  .max(512)
  // A registry may be an IPv6 address in brackets ([::1]:5000/bench).
  .regex(/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9])[A-Za-z0-9._\-/:@+]*$/, {
    message:
      'an image reference, e.g. localhost/runtime-bench/bench:latest (no spaces, not starting with "-")',
  });

/** A CRI runtime endpoint and the runtime handlers (OCI runtimes) to benchmark behind it. */
export const TargetConfigSchema = z
  .strictObject({
    kind: z.literal('cri').optional().meta({
      description:
        'a CRI endpoint (the default kind); "kubernetes" for a cluster, "engine" for Docker/Podman/nerdctl',
    }),
    name: z.string().min(1).optional().meta({ description: 'label for this CRI endpoint in results' }),
    cri: z.enum(['containerd', 'cri-o']).default('containerd'),
    stack: StackNameSchema.optional().meta({
      description: 'name of a local stack started with `runtime-bench stack up --name N`',
    }),
    endpoint: z
      .string()
      .regex(/^(unix:\/\/)?\//, {
        message: 'an endpoint is a unix socket path, e.g. unix:///run/containerd/containerd.sock',
      })
      .optional()
      .meta({ description: 'CRI socket of an already running runtime (instead of `stack`)' }),
    handlers: z
      .union(
        [
          z.literal('all'),
          z
            .array(z.string().min(1))
            .min(1)
            .superRefine((handlers, ctx) =>
              checkUnique(
                handlers,
                (h) => h,
                (i) => [i],
                (h) => `"${h}"`,
                'handlers',
                ctx,
              ),
            ),
        ],
        {
          // Without this, `handlers: runc` says only "Invalid input".
          error: (issue) =>
            typeof issue.input === 'string'
              ? `"${issue.input}" is one name, not a list: write handlers: [${issue.input}], or "all" for every handler of the stack`
              : Array.isArray(issue.input)
                ? undefined
                : 'write a list of runtime handler names, e.g. [runc, crun], or "all"',
        },
      )
      .default('all')
      .meta({ description: 'runtime handlers to benchmark, or "all" that the local stack registered' }),
    transport: TransportSchema.default('grpc').meta({
      description: 'how timed CRI calls are made: in-process gRPC (default) or by spawning crictl',
    }),
    crictl: z.string().min(1).default('crictl').meta({ description: 'crictl binary for transport "crictl"' }),
  })
  .refine((t) => !(t.stack && t.endpoint), {
    message: 'give either "stack" or "endpoint", not both',
    path: ['endpoint'],
  });
export type TargetConfig = z.output<typeof TargetConfigSchema>;

/** A Kubernetes object name (RFC 1123 label): RuntimeClasses, nodes, namespaces. */
const DnsLabelSchema = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, {
  message: 'a Kubernetes name is lower-case letters, digits and "-", at most 63 characters',
});

/** One RuntimeClass to compare: an existing one by name, or one the run creates for a handler. */
export const RuntimeClassConfigSchema = z.strictObject({
  name: DnsLabelSchema,
  handler: z.string().min(1).optional().meta({
    description:
      'CRI runtime handler: when the RuntimeClass does not exist, the run creates it with this handler and deletes it at the end',
  }),
});

/**
 * A Kubernetes cluster as the engine: pods per RuntimeClass on each selected node. Each node is
 * a host and each node × RuntimeClass a target of its own result file.
 */
export const KubernetesTargetConfigSchema = z.strictObject({
  kind: z.literal('kubernetes'),
  name: z.string().min(1).default('kubernetes').meta({ description: 'label of the cluster in target ids' }),
  kubeconfig: z.string().min(1).optional().meta({
    description:
      'kubeconfig file; default: $KUBECONFIG, then ~/.kube/config, then the in-cluster service account',
  }),
  context: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'kubeconfig context; default: its current-context' }),
  namespacePrefix: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,29}$/, {
      message: 'lower-case letters, digits and "-", at most 30 characters',
    })
    .default('runtime-bench-')
    .meta({ description: 'the run creates the namespace <prefix><run id> and deletes it at the end' }),
  runtimeClasses: z
    .array(RuntimeClassConfigSchema)
    .min(1)
    .superRefine((classes, ctx) =>
      checkUnique(
        classes,
        (c) => c.name,
        (i) => [i],
        (c) => `RuntimeClass "${c.name}"`,
        'runtimeClasses',
        ctx,
      ),
    )
    .meta({ description: 'RuntimeClasses to compare, e.g. [{name: runc}, {name: rb-crun, handler: crun}]' }),
  nodes: z
    .union([
      z.literal('all'),
      z.strictObject({
        selector: z.string().min(1).meta({ description: 'a label selector, e.g. pool=bench' }),
      }),
      z.strictObject({ names: z.array(DnsLabelSchema).min(1) }),
    ])
    .default('all')
    .meta({ description: '"all" schedulable nodes, {selector: "k=v"} or {names: [...]}' }),
  image: ImageRefSchema.default('localhost/runtime-bench/bench:latest').meta({
    description:
      "the pods' image: one the nodes can pull (or, for a local stack, its image with imagePullPolicy Never)",
  }),
  imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).default('IfNotPresent'),
  podTimeoutSeconds: z
    .number()
    .positive()
    .max(3600)
    .default(120)
    .meta({ description: 'deadline for one pod to become Ready (and to be gone after deletion)' }),
});
export type KubernetesTargetConfig = z.output<typeof KubernetesTargetConfigSchema>;

/** The container engines an engine target drives through their own CLI. */
export const EngineNameSchema = z.enum(['docker', 'podman', 'nerdctl']);
export type EngineName = z.output<typeof EngineNameSchema>;

/**
 * A container engine (Docker, Podman, nerdctl) driven through its CLI (`<engine> run --rm
 * --runtime …`), with a private daemon and storage root per run, so the host's own engine is
 * never touched. Each runtime is a target of its own.
 */
export const EngineTargetConfigSchema = z
  .strictObject({
    kind: z.literal('engine'),
    engine: EngineNameSchema,
    name: z
      .string()
      // Results recorded before this rule hold free labels ("docker 27"): only what breaks a
      // target id (the "/" before the runtime) or a log line is refused, so they stay readable.
      .regex(/^[^/]+$/, { message: 'a label without "/" (it is the part before "/" of target ids)' })
      .refine((label) => ![...label].some((c) => c < ' ' || c === '\u007f'), {
        message: 'a label without control characters (a newline would forge a log line)',
      })
      .optional()
      .meta({ description: 'label of the engine in target ids; default: the engine' }),
    runtimes: z
      .array(
        z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, { message: 'an OCI runtime name, e.g. runc or crun' }),
      )
      .min(1)
      .superRefine((runtimes, ctx) =>
        checkUnique(
          runtimes,
          (r) => r,
          (i) => [i],
          (r) => `"${r}"`,
          'runtimes',
          ctx,
        ),
      )
      .meta({ description: 'OCI runtimes (found on PATH) to run containers with, e.g. [runc, crun]' }),
    containerd: z
      .string()
      // It names a directory under the install prefix: nothing that could leave it.
      .regex(/^v?\d+\.\d+\.\d+[0-9A-Za-z.+~_-]*$/, { message: 'a containerd version, e.g. 1.7.35' })
      .refine((v) => !v.includes('..'), { message: 'a containerd version, e.g. 1.7.35' })
      .optional()
      .meta({
        description:
          'nerdctl only: the containerd version (as `runtime-bench install` put it under /opt/runtime-bench, with its runc shim) nerdctl runs on, e.g. 1.7.35, so that what runs does not change when another containerd is installed. Default: the newest installed one, else containerd on PATH',
      }),
  })
  .refine((t) => t.containerd === undefined || t.engine === 'nerdctl', {
    message: 'containerd is a choice of nerdctl targets only (Docker and Podman bring their own)',
    path: ['containerd'],
  });
export type EngineTargetConfig = z.output<typeof EngineTargetConfigSchema>;

/** A target of the config: a CRI endpoint (no `kind`, or kind "cri"), a Kubernetes cluster or an engine. */
export const AnyTargetConfigSchema = z.discriminatedUnion('kind', [
  TargetConfigSchema,
  KubernetesTargetConfigSchema,
  EngineTargetConfigSchema,
]);
export type AnyTargetConfig = z.output<typeof AnyTargetConfigSchema>;

/** The CRI targets of a config (kubernetes and engine targets run through kinds of their own). */
export function criTargets(targets: readonly AnyTargetConfig[]): TargetConfig[] {
  return targets.filter((t): t is TargetConfig => t.kind === undefined || t.kind === 'cri');
}

export const ImagesConfigSchema = z.strictObject({
  pause: ImageRefSchema.default('localhost/runtime-bench/pause:latest'),
  bench: ImageRefSchema.default('localhost/runtime-bench/bench:latest'),
  large: ImageRefSchema.default('localhost/runtime-bench/large:latest').meta({
    description: 'the large image of startup.first-output: the bench image plus filler layers',
  }),
  largeSizeMiB: z
    .int()
    .min(0)
    .max(4096)
    .default(256)
    .meta({ description: 'filler size of the large image `stack up` builds; 0 builds none' }),
});

/** An extra CRI runtime handler for `stack up`, e.g. a second runc version. */
export const ExtraHandlerSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, {
    message: 'a handler name is lower-case letters, digits, ".", "_", "-"',
  }),
  binary: z.string().startsWith('/', { message: 'give the absolute path of the OCI runtime binary' }),
  kind: z
    .enum(['runc', 'crun', 'youki', 'runsc'])
    .optional()
    .meta({ description: 'which OCI runtime the binary is; guessed from its file name when absent' }),
});

export const StackConfigSchema = z.strictObject({
  extraHandlers: z
    .array(ExtraHandlerSchema)
    .superRefine((handlers, ctx) =>
      checkUnique(
        handlers,
        (h) => h.name,
        (i) => [i, 'name'],
        (h) => `"${h.name}"`,
        'extraHandlers',
        ctx,
      ),
    )
    .default([]),
  subnet: z
    .string()
    .regex(/^\d+\.\d+\.\d+\.\d+\/\d+$/, { message: 'a subnet is CIDR, e.g. 10.233.0.0/24' })
    .refine(
      (cidr) => {
        const [address, prefix] = cidr.split('/');
        return address!.split('.').every((o) => Number(o) <= 255) && Number(prefix) <= 32;
      },
      { message: 'a subnet is CIDR: octets 0-255 and a prefix of at most 32, e.g. 10.233.0.0/24' },
    )
    .optional(),
});

/** The YAML config of `runtime-bench run` (and optionally of `stack up`). */
export const ConfigSchema = z.strictObject({
  name: z.string().min(1).default('unnamed'),
  targets: z
    .array(AnyTargetConfigSchema)
    .min(1)
    .default([{ cri: 'containerd', handlers: 'all', transport: 'grpc', crictl: 'crictl' }])
    .meta({ description: 'CRI endpoints × handlers; default: every handler of the local stack "default"' }),
  benchmarks: z
    .array(z.string().min(1))
    .min(1)
    .default(['operations', 'performance'])
    .meta({ description: 'benchmark name prefixes to run, e.g. ["performance.cpu", "operations"]' }),
  skip: z.array(z.string().min(1)).default([]).meta({ description: 'benchmark name prefixes to leave out' }),
  runs: z
    .int()
    .min(1)
    .max(100000)
    .default(10)
    .meta({ description: 'measured repetitions per target × benchmark' }),
  runsPerBenchmark: z
    .record(
      z.string().min(1),
      z.int().min(1, { message: 'runs of a benchmark must be at least 1' }).max(100000),
    )
    .default({})
    .meta({
      description:
        'measured repetitions of the benchmarks whose name starts with a key, instead of runs (the longest matching key wins), e.g. { "operations.container.lifecycle": 200 }: cheap calls need many samples a night for the gate to see a small step',
    }),
  warmup: z
    .int()
    .min(0)
    .max(1000)
    .default(1)
    .meta({ description: 'unrecorded repetitions before the measured ones' }),
  settleSeconds: z.number().min(0).max(600).default(0).meta({ description: 'pause between runs' }),
  roundOrder: z.enum(['fixed', 'shuffled']).default('fixed').meta({
    description:
      "order of the targets within each round of repetitions: fixed (as listed: A B C, A B C) or shuffled (each round in a random order drawn from the run id, so it can be replayed). A side-by-side version change needs shuffled: then the two versions are exchangeable within a round when they are the same code, the paired test's assumption",
  }),
  versionChanges: z
    .array(
      z.strictObject({
        before: z.string().min(1).meta({ description: 'target id (name/handler) of the previous version' }),
        after: z.string().min(1).meta({ description: 'target id (name/handler) of the new version' }),
      }),
    )
    .default([])
    .meta({
      description:
        "pairs of targets measured side by side as one version change (the previous version added beside the new one when a tracked component moved): `check` decides each pair's change and counts a regression of it as a regression of the night",
    }),
  errorThreshold: z
    .number()
    .min(0)
    .max(1)
    .default(0.1)
    .meta({ description: 'a benchmark whose error rate exceeds this is marked invalid' }),
  callTimeoutSeconds: z
    .number()
    .positive()
    .max(3600)
    .default(120)
    .meta({ description: 'deadline of one CRI call' }),
  images: ImagesConfigSchema.default(ImagesConfigSchema.parse({})),
  parameters: BenchmarkParametersSchema.default(BenchmarkParametersSchema.parse({})),
  stack: StackConfigSchema.default(StackConfigSchema.parse({})),
});
export type Config = z.output<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/**
 * Measured repetitions of one benchmark: the longest key of runsPerBenchmark that is the name or
 * a dotted prefix of it ("operations" matches "operations.container.lifecycle", not
 * "operationsx"), else runs.
 */
export function runsFor(config: Pick<Config, 'runs' | 'runsPerBenchmark'>, benchmark: string): number {
  let best: { key: string; runs: number } | null = null;
  for (const [key, runs] of Object.entries(config.runsPerBenchmark))
    if ((benchmark === key || benchmark.startsWith(`${key}.`)) && (!best || key.length > best.key.length))
      best = { key, runs };
  return best?.runs ?? config.runs;
}
