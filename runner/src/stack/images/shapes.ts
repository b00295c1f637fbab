// Pure planning of the image.* benchmarks' images: how many layers, how big each is, which files
// hold compressible and which incompressible bytes, and the reference the image gets in the
// stack's registry. The builder (shaped.ts) turns a plan into bytes; the same plan always gives
// the same uncompressed layers (seeded content), so diff_ids and, with the same compressor
// versions, digests are stable from night to night.
import { createHash } from 'node:crypto';

export type SizeClass = 'small' | 'medium' | 'large';
export type LayerCompression = 'gzip' | 'zstd';

/** The realistic shapes the issue names: a few-MB one-layer tool, a 100–300 MB app, a 1 GB stack. */
export const SIZE_CLASSES: Record<SizeClass, { sizeMiB: number; layers: number }> = {
  small: { sizeMiB: 4, layers: 1 },
  medium: { sizeMiB: 200, layers: 8 },
  large: { sizeMiB: 1024, layers: 12 },
};

/** Files are at most this big, so a layer is many files (as real layers are), none huge. */
export const MAX_FILE_BYTES = 8 << 20;

export interface ImageShapeInput {
  size: SizeClass;
  /** Overrides the class's total filler size (tests use a few MiB). */
  sizeMiB?: number | undefined;
  /** Overrides the class's layer count. */
  layers?: number | undefined;
  compression: LayerCompression;
  /** Share of each layer's bytes that compress well (text-like, 3 bits of entropy per byte). */
  compressibleShare: number;
  /** Distinct variants (concurrent pulls) get distinct content and references. */
  variant: number;
}

export interface FilePlan {
  /** Path inside the image, e.g. opt/data/layer-03/file-002.bin */
  path: string;
  bytes: number;
  content: 'compressible' | 'incompressible';
  /** Seeds the file's bytes (the content generator's key). */
  seed: string;
}

export interface LayerPlan {
  index: number;
  bytes: number;
  files: FilePlan[];
}

export interface ImagePlan {
  /** The repository below the registry, e.g. runtime-bench/image-medium-zstd-v0 */
  repository: string;
  /** Derived from everything that shapes the bytes: a changed shape never reuses a pushed tag. */
  tag: string;
  compression: LayerCompression;
  /** Filler bytes over all layers (the base layer's busybox comes on top). */
  totalBytes: number;
  layers: LayerPlan[];
}

/**
 * Layer sizes as real images have them: one big base layer, then ever smaller ones (weights
 * 1, 1/2, 1/3, …), summing exactly to `total` (the last layer takes the rounding); each layer
 * at least one byte.
 */
export function layerSizes(total: number, count: number): number[] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`layer count ${count}`);
  if (!Number.isInteger(total) || total < count) throw new RangeError(`total ${total} for ${count} layers`);
  const weights = Array.from({ length: count }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((total * w) / sum)));
  sizes[count - 1] = total - sizes.slice(0, -1).reduce((a, b) => a + b, 0);
  if (sizes[count - 1]! < 1) throw new RangeError(`total ${total} too small for ${count} layers`);
  return sizes;
}

/** Splits `bytes` into files of at most MAX_FILE_BYTES, `share` of them compressible (first). */
function layerFiles(index: number, bytes: number, share: number, seedBase: string): FilePlan[] {
  const files: FilePlan[] = [];
  const compressible = Math.round(bytes * share);
  const dir = `opt/data/layer-${String(index).padStart(2, '0')}`;
  for (const [content, amount] of [
    ['compressible', compressible],
    ['incompressible', bytes - compressible],
  ] as const) {
    for (let done = 0; done < amount;) {
      const n = Math.min(MAX_FILE_BYTES, amount - done);
      const path = `${dir}/${content === 'compressible' ? 'text' : 'blob'}-${String(files.length).padStart(3, '0')}.bin`;
      files.push({ path, bytes: n, content, seed: `${seedBase}/${path}` });
      done += n;
    }
  }
  return files;
}

export function planImage(input: ImageShapeInput): ImagePlan {
  const cls = SIZE_CLASSES[input.size];
  const sizeMiB = input.sizeMiB ?? cls.sizeMiB;
  const count = input.layers ?? cls.layers;
  if (!(input.compressibleShare >= 0 && input.compressibleShare <= 1))
    throw new RangeError(`compressibleShare ${input.compressibleShare}`);
  const totalBytes = Math.round(sizeMiB * 2 ** 20);
  const identity = JSON.stringify({
    sizeMiB,
    layers: count,
    compressibleShare: input.compressibleShare,
    variant: input.variant,
    // Bump when the generator changes what bytes a seed gives.
    generator: 1,
  });
  const seedBase = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  const layers = layerSizes(totalBytes, count).map((bytes, index) => ({
    index,
    bytes,
    files: layerFiles(index, bytes, input.compressibleShare, seedBase),
  }));
  return {
    repository: `runtime-bench/image-${input.size}-${input.compression}-v${input.variant}`,
    tag: `s-${seedBase}`,
    compression: input.compression,
    totalBytes,
    layers,
  };
}
