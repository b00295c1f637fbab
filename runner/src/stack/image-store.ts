// What a stack's private image store still holds of an image, read from the store itself (not
// from what the CRI says): the cold repetitions of image.* assert on this. containerd keeps each
// blob as a file named by its digest in the content store; CRI-O's containers-storage lists its
// layers (with their compressed and uncompressed digests) and images in JSON files.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StackState } from './state.ts';

export interface StoredImage {
  /** The compressed layer digests (what the registry serves). */
  layerDigests: string[];
  /** The uncompressed layer digests (the config's diff_ids). */
  diffIds: string[];
  configDigest: string;
}

/** containerd's content store below the stack's root. */
export function containerdContentDir(stateDir: string): string {
  return join(stateDir, 'root', 'io.containerd.content.v1.content', 'blobs', 'sha256');
}

const hex = (digest: string): string => digest.replace(/^sha256:/, '');

/** From CRI-O's layers.json and images.json texts: which of the image's digests they mention (pure). */
export function crioStoreMentions(layersJson: string, imagesJson: string, image: StoredImage): string[] {
  const layers = JSON.parse(layersJson || '[]') as {
    'compressed-diff-digest'?: string;
    'diff-digest'?: string;
  }[];
  const images = JSON.parse(imagesJson || '[]') as { id: string }[];
  const wanted = new Set([...image.layerDigests, ...image.diffIds]);
  const found = new Set<string>();
  for (const l of layers)
    for (const d of [l['compressed-diff-digest'], l['diff-digest']]) if (d && wanted.has(d)) found.add(d);
  if (images.some((i) => i.id === hex(image.configDigest))) found.add(image.configDigest);
  return [...found].sort();
}

async function readOr(path: string, fallback: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
}

/** The digests of `image` (layers, config) the stack's store still holds; empty when it is cold. */
export async function storeHolds(state: StackState, image: StoredImage): Promise<string[]> {
  if (state.cri === 'containerd') {
    const blobs = new Set(await readdir(containerdContentDir(state.stateDir)).catch(() => [] as string[]));
    return [...image.layerDigests, image.configDigest].filter((d) => blobs.has(hex(d))).sort();
  }
  const root = state.crio.storageRoot;
  return crioStoreMentions(
    await readOr(join(root, 'overlay-layers', 'layers.json'), '[]'),
    await readOr(join(root, 'overlay-images', 'images.json'), '[]'),
    image,
  );
}
