// What the image.* benchmarks share: the image of a shape in the stack's registry (built and
// pushed once, outside every timed region), a store made cold and proved cold from its contents,
// and throughput from what the registry serves.
import type { ImageParameters } from '@runtime-bench/schemas';
import { which } from '../util/path-search.ts';
import { storeHolds } from '../stack/image-store.ts';
import { lookupImage, type PushedImage } from '../stack/images/registry-api.ts';
import { buildAndPush } from '../stack/images/shaped.ts';
import { planImage, type ImagePlan, type LayerCompression } from '../stack/images/shapes.ts';
import { registryAnswers } from '../stack/registry.ts';
import { sleep } from '../util/exec.ts';
import type { BenchmarkContext } from './types.ts';
import { InterruptedError } from '../errors.ts';

/** Why this target cannot run image.*, or null: it needs a local stack with its registry up. */
export async function imageUnsupported(ctx: BenchmarkContext): Promise<string | null> {
  const registry = ctx.stack?.registry;
  if (!ctx.stack) return 'image.* pulls from the registry of a local stack; this target is a bare endpoint';
  if (!registry || registry.pid === null)
    return `stack "${ctx.stack.name}" has no registry (apt-get install docker-registry, then \`runtime-bench stack down\` and \`stack up\`)`;
  if (!(await registryAnswers(registry.address)))
    throw new Error(`the registry of stack "${ctx.stack.name}" does not answer on ${registry.address}`);
  return null;
}

/** The image plan of the parameters for one compression; `variant` tells concurrent images apart. */
export function planFor(params: ImageParameters, compression: LayerCompression, variant = 0): ImagePlan {
  return planImage({
    size: params.size,
    sizeMiB: params.sizeMiB,
    layers: params.layers,
    compression,
    compressibleShare: params.compressibleShare,
    variant,
  });
}

function stackOf(ctx: BenchmarkContext): { stateDir: string; address: string } {
  const registry = ctx.stack?.registry;
  if (!ctx.stack || !registry) throw new Error('no stack registry (imageUnsupported was not asked)');
  return { stateDir: ctx.stack.stateDir, address: registry.address };
}

/** The planned image as the registry serves it, built and pushed first when it has none. */
export async function ensurePushed(ctx: BenchmarkContext, plan: ImagePlan): Promise<PushedImage> {
  const { stateDir, address } = stackOf(ctx);
  const found = await lookupImage(address, plan.repository, plan.tag);
  if (found) return found;
  const skopeo = await which('skopeo');
  const busybox = (await which('busybox')) ?? '/bin/busybox';
  if (!skopeo) throw new Error('skopeo is needed to push the image.* images (apt-get install skopeo)');
  await buildAndPush(stateDir, plan, address, { skopeo, busybox });
  const pushed = await lookupImage(address, plan.repository, plan.tag);
  if (!pushed) throw new Error(`${plan.repository}:${plan.tag} is not in the registry after the push`);
  return pushed;
}

/** How long a cold check waits for the runtime's garbage collection to drop the blobs. */
const COLD_WAIT_MS = 30_000;

/**
 * Proves the store cold for `image`: the CRI lists no image of that reference or id, and the
 * store's own files (containerd's content store, CRI-O's layers and images) hold none of its
 * layers or config. Waits for a runtime that collects garbage asynchronously, then throws naming
 * what is left.
 */
export async function assertCold(ctx: BenchmarkContext, image: PushedImage): Promise<void> {
  const stack = ctx.stack;
  if (!stack) throw new Error('no stack');
  const deadline = Date.now() + COLD_WAIT_MS;
  for (;;) {
    if (ctx.signal.aborted) throw new InterruptedError();
    const listed = (await ctx.cri.listImages()).filter(
      (i) => i.repoTags.includes(image.reference) || i.id === image.configDigest,
    );
    const held = await storeHolds(stack, {
      layerDigests: image.layers.map((l) => l.digest),
      diffIds: image.diffIds,
      configDigest: image.configDigest,
    });
    if (listed.length === 0 && held.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `the image store is not cold for ${image.reference}: ${listed.length ? 'the CRI still lists it; ' : ''}the store holds ${held.length} of its blobs (${held.slice(0, 3).join(', ')})`,
      );
    await sleep(100);
  }
}

/** Removes the image when the runtime has it (untimed), then proves the store cold. */
export async function makeCold(ctx: BenchmarkContext, image: PushedImage): Promise<void> {
  if (await ctx.cri.imageStatus(image.reference)) await ctx.cri.removeImage(image.reference);
  await assertCold(ctx, image);
}

/** Compressed MiB and layers per second of pulling `images` in `seconds`. */
export function pullRates(
  images: readonly Pick<PushedImage, 'layerBytes' | 'layers'>[],
  seconds: number,
): { mibPerSecond: number; layersPerSecond: number } {
  if (!(seconds > 0)) throw new RangeError(`pull time ${seconds} s`);
  const bytes = images.reduce((s, i) => s + i.layerBytes, 0);
  const layers = images.reduce((s, i) => s + i.layers.length, 0);
  return { mibPerSecond: bytes / 2 ** 20 / seconds, layersPerSecond: layers / seconds };
}

/** Seconds since a process.hrtime.bigint() reading. */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
