// image.*: pulling and unpacking from a real registry (the stack's own, on loopback), the part of
// pod start users wait for. Each benchmark runs once per layer compression of the parameters, on
// an image of the configured shape; a cold repetition starts from a store proved empty of it.
import type { BenchmarkDefinition, ImageParameters } from '@runtime-bench/schemas';
import type { PushedImage } from '../stack/images/registry-api.ts';
import {
  assertCold,
  ensurePushed,
  imageUnsupported,
  makeCold,
  planFor,
  pullRates,
  secondsSince,
} from './image-kit.ts';
import { finish, part, withPod, type Gathered } from './kit.ts';
import { containerConfig, timed } from './pods.ts';
import type { Benchmark, BenchmarkContext, IterationOutcome } from './types.ts';

type Metric = BenchmarkDefinition['metrics'][number];
type Compression = ImageParameters['compressions'][number];
const COMPRESSIONS = ['gzip', 'zstd'] as const;

/** One table per benchmark: the metric suffix, unit, direction and description (per compression). */
type MetricRow = [suffix: string, unit: Metric['unit'], direction: Metric['direction'], description: string];

function metricsOf(rows: readonly MetricRow[]): Metric[] {
  return COMPRESSIONS.flatMap((c) =>
    rows.map(([suffix, unit, direction, description]) => ({
      name: `${c}_${suffix}`,
      unit,
      direction,
      description: `${c} layers: ${description}`,
    })),
  );
}

const namesFor = (rows: readonly MetricRow[], c: Compression): string[] => rows.map(([s]) => `${c}_${s}`);

const PULL_ROWS: readonly MetricRow[] = [
  [
    'cold_pull',
    's',
    'lower',
    'PullImage with the image absent from the store (asserted from its files), registry warm',
  ],
  ['cold_mib_per_s', 'MiB/s', 'higher', 'compressed layer MiB per second of the cold pull'],
  ['cold_layers_per_s', 'events/s', 'higher', 'layers per second of the cold pull (an event is a layer)'],
  ['warm_pull', 'ms', 'lower', 'PullImage again with the image present'],
  ['remove', 'ms', 'lower', 'RemoveImage of the pulled image (the store is then asserted cold)'],
];

const CONCURRENT_ROWS: readonly MetricRow[] = [
  ['all', 's', 'lower', '`concurrency` distinct cold images pulled at once: first request to last image'],
  ['mib_per_s', 'MiB/s', 'higher', 'compressed MiB of all images per second of the whole'],
  [
    'layers_per_s',
    'events/s',
    'higher',
    'layers of all images per second of the whole (an event is a layer)',
  ],
  ['pull_median', 's', 'lower', 'median of the single pulls while they ran together'],
];

const POD_ROWS: readonly MetricRow[] = [
  [
    'pod_start',
    's',
    'lower',
    'cold image: before RunPodSandbox to the container running, PullImage included',
  ],
  ['pull', 's', 'lower', 'the PullImage part of the pod start'],
  ['pull_mib_per_s', 'MiB/s', 'higher', 'compressed layer MiB per second of that pull'],
  ['without_pull', 'ms', 'lower', 'RunPodSandbox, CreateContainer and StartContainer of that pod start'],
];

/** Said of the benchmarks that run no container: their numbers are the CRI daemon's alone. */
const ONCE_PER_ENDPOINT =
  "It runs no container, so the OCI runtime plays no part: measured once per CRI endpoint, recorded on the endpoint's first handler's target.";

const SHAPE =
  "The images are built offline with seeded content (parameters image: size class, layers, compressible share) and pushed once to the stack's own registry (docker-registry on 127.0.0.1), outside every timed region.";

/** Runs `body` once per configured compression, each its own part (its failure marks only its metrics). */
async function perCompression(
  ctx: BenchmarkContext,
  params: ImageParameters,
  rows: readonly MetricRow[],
  body: (c: Compression, gathered: Gathered) => Promise<void>,
): Promise<IterationOutcome> {
  const unsupported = await imageUnsupported(ctx);
  if (unsupported) return { values: {}, errors: {}, unsupported };
  const gathered: Gathered = { values: {}, errors: {} };
  const failures: (string | null)[] = [];
  for (const c of params.compressions)
    failures.push(await part(gathered, namesFor(rows, c), c, () => body(c, gathered)));
  return finish(gathered, failures);
}

export const imagePullBenchmark: Benchmark<ImageParameters> = {
  definition: {
    name: 'image.pull',
    description: `PullImage from a real registry, cold (the store proved empty of the image from its own files, not assumed) and warm, then RemoveImage; bytes and layers per second beside the times. ${SHAPE} ${ONCE_PER_ENDPOINT}`,
    origin: ['critest'],
    metrics: metricsOf(PULL_ROWS),
  },
  scope: 'endpoint',
  parameters: (config) => config.parameters.image,
  iterate: (ctx, params) =>
    perCompression(ctx, params, PULL_ROWS, async (c, gathered) => {
      const image = await ensurePushed(ctx, planFor(params, c));
      await makeCold(ctx, image);
      const cold = await timed(() => ctx.cri.pullImage(image.reference));
      if (!(await ctx.cri.imageStatus(image.reference)))
        throw new Error(`PullImage returned ${cold.value} but ImageStatus does not know ${image.reference}`);
      const rates = pullRates([image], cold.ms / 1000);
      const warm = await timed(() => ctx.cri.pullImage(image.reference));
      const removal = await timed(() => ctx.cri.removeImage(image.reference));
      // The removal counts only if the store really let go of the image (the next cold pull needs it).
      await assertCold(ctx, image);
      Object.assign(gathered.values, {
        [`${c}_cold_pull`]: cold.ms / 1000,
        [`${c}_cold_mib_per_s`]: rates.mibPerSecond,
        [`${c}_cold_layers_per_s`]: rates.layersPerSecond,
        [`${c}_warm_pull`]: warm.ms,
        [`${c}_remove`]: removal.ms,
      });
    }),
};

export const imageConcurrentPullsBenchmark: Benchmark<ImageParameters> = {
  definition: {
    name: 'image.concurrent-pulls',
    description: `\`concurrency\` distinct images of the same shape (no shared layers) pulled cold at once, as a node does when several pods land on it; the store is proved empty of all of them first and after their removal. ${SHAPE} ${ONCE_PER_ENDPOINT}`,
    origin: ['critest'],
    metrics: metricsOf(CONCURRENT_ROWS),
  },
  scope: 'endpoint',
  parameters: (config) => config.parameters.image,
  iterate: (ctx, params) =>
    perCompression(ctx, params, CONCURRENT_ROWS, async (c, gathered) => {
      const images: PushedImage[] = [];
      for (let v = 0; v < params.concurrency; v++)
        images.push(await ensurePushed(ctx, planFor(params, c, v)));
      for (const image of images) await makeCold(ctx, image);
      const start = process.hrtime.bigint();
      const singles = await Promise.allSettled(
        images.map(async (image) => {
          await ctx.cri.pullImage(image.reference);
          return secondsSince(start);
        }),
      );
      const all = secondsSince(start);
      for (const image of images)
        if (await ctx.cri.imageStatus(image.reference)) await ctx.cri.removeImage(image.reference);
      const failed = singles.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      for (const image of images) await assertCold(ctx, image);
      const times = singles.map((s) => (s as PromiseFulfilledResult<number>).value).sort((a, b) => a - b);
      const mid = times.length / 2;
      const rates = pullRates(images, all);
      Object.assign(gathered.values, {
        [`${c}_all`]: all,
        [`${c}_mib_per_s`]: rates.mibPerSecond,
        [`${c}_layers_per_s`]: rates.layersPerSecond,
        [`${c}_pull_median`]:
          times.length % 2 ? times[Math.floor(mid)]! : (times[mid - 1]! + times[mid]!) / 2,
      });
    }),
};

export const imagePodStartBenchmark: Benchmark<ImageParameters> = {
  definition: {
    name: 'image.pod-start',
    description: `Pod start with a cold image, as the kubelet does it: RunPodSandbox, PullImage (with the pod's config), CreateContainer, StartContainer, until the container runs; the image is absent from the store at the start (asserted) and removed after. ${SHAPE}`,
    origin: ['critest'],
    metrics: metricsOf(POD_ROWS),
  },
  parameters: (config) => config.parameters.image,
  iterate: (ctx, params) =>
    perCompression(ctx, params, POD_ROWS, async (c, gathered) => {
      let image: PushedImage | undefined;
      let begin = 0n;
      const outcome = await withPod(
        ctx,
        `image-${c}`,
        namesFor(POD_ROWS, c),
        async (pod) => {
          const ref = image!.reference;
          const pull = await timed(() => ctx.cri.pullImage(ref, pod.config));
          const container = containerConfig(ctx, 'cold-image', ['/bin/sleep', '3600'], {
            image: { image: ref },
          });
          const id = await ctx.cri.createContainer(pod.id, container, pod.config);
          await ctx.cri.startContainer(id);
          const total = secondsSince(begin);
          const status = await ctx.cri.containerStatus(id);
          if (status.state !== 'CONTAINER_RUNNING')
            throw new Error(`the container is ${status.state} after StartContainer (${status.reason})`);
          // Untimed: the image can go only once no container uses it; the next repetition is cold again.
          await ctx.cri.removeContainer(id);
          await ctx.cri.removeImage(ref);
          return {
            values: {
              [`${c}_pod_start`]: total,
              [`${c}_pull`]: pull.ms / 1000,
              [`${c}_pull_mib_per_s`]: pullRates([image!], pull.ms / 1000).mibPerSecond,
              [`${c}_without_pull`]: total * 1000 - pull.ms,
            },
            errors: {},
          };
        },
        {
          prepare: async () => {
            image = await ensurePushed(ctx, planFor(params, c));
            await makeCold(ctx, image);
            begin = process.hrtime.bigint();
          },
        },
      );
      Object.assign(gathered.values, outcome.values);
      if (outcome.failure) throw new Error(outcome.failure);
    }),
};

export const imageBenchmarks = [imagePullBenchmark, imageConcurrentPullsBenchmark, imagePodStartBenchmark];
