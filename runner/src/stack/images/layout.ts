import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, lstat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { create as createTar } from 'tar';

export const IMAGE_ENV_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const sha256 = (data: Buffer | string): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** Every path below root, parents before children, in byte order: a reproducible layer. */
export async function listTree(root: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const full = join(dir, name);
      out.push(relative(root, full));
      const st = await lstat(full);
      if (st.isDirectory()) await walk(full);
    }
  }
  await walk(root);
  return out;
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

export const LAYER_MEDIA_TYPE = {
  gzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  zstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
} as const;

export interface Layer {
  /** Digest of the uncompressed tar (the config's diff_id). */
  diffId: string;
  digest: string;
  /** Bytes of the compressed blob. */
  size: number;
  /** Default: tar+gzip. */
  mediaType?: string;
  /** The compressed blob; absent when its builder already wrote it into the layout (streamed layers). */
  gzipped?: Buffer;
}

/** One image layer from a directory: owner root, mtime 0, sorted entries, gzip. */
export async function buildLayer(root: string): Promise<Layer> {
  const entries = await listTree(root);
  const tar = await collect(
    createTar(
      { cwd: root, portable: true, mtime: new Date(0), noDirRecurse: true, follow: false },
      entries,
    ) as unknown as NodeJS.ReadableStream,
  );
  const gzipped = gzipSync(tar, { level: 6 });
  return { diffId: sha256(tar), gzipped, digest: sha256(gzipped), size: gzipped.length };
}

export interface ImageSpec {
  /** Full reference, e.g. localhost/runtime-bench/bench:latest */
  name: string;
  /** What the history says made each layer (default: built offline from host binaries). */
  createdBy?: string;
  layers: Layer[];
  entrypoint: string[];
  cmd?: string[];
  /** The signal a runtime stops the container with (image config StopSignal); default SIGTERM. */
  stopSignal?: string;
}

export interface BuiltImage {
  name: string;
  manifestDigest: string;
  configDigest: string;
}

/**
 * Writes an OCI image layout directory (oci-layout, index.json, blobs/sha256/…) holding the images,
 * each index entry annotated with its full reference so `ctr images import` names it.
 */
export async function writeImageLayout(dir: string, images: ImageSpec[]): Promise<BuiltImage[]> {
  const blobs = join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const putBlob = async (data: Buffer | string): Promise<{ digest: string; size: number }> => {
    const digest = sha256(data);
    await writeFile(join(blobs, digest.slice('sha256:'.length)), data);
    return { digest, size: Buffer.byteLength(data) };
  };
  const manifests = [];
  const built: BuiltImage[] = [];
  for (const image of images) {
    for (const layer of image.layers) if (layer.gzipped) await putBlob(layer.gzipped);
    const config = JSON.stringify({
      architecture: process.arch === 'x64' ? 'amd64' : process.arch,
      os: 'linux',
      // youki refuses a process without PATH, so the image must provide one.
      config: {
        Entrypoint: image.entrypoint,
        Cmd: image.cmd ?? null,
        Env: [IMAGE_ENV_PATH],
        WorkingDir: '/',
        ...(image.stopSignal ? { StopSignal: image.stopSignal } : {}),
      },
      rootfs: { type: 'layers', diff_ids: image.layers.map((l) => l.diffId) },
      history: image.layers.map(() => ({
        created_by: image.createdBy ?? 'runtime-bench stack up (built offline from host binaries)',
      })),
    });
    const configBlob = await putBlob(config);
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...configBlob },
      layers: image.layers.map((l) => ({
        mediaType: l.mediaType ?? LAYER_MEDIA_TYPE.gzip,
        digest: l.digest,
        size: l.size,
      })),
    });
    const manifestBlob = await putBlob(manifest);
    manifests.push({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      ...manifestBlob,
      platform: { architecture: process.arch === 'x64' ? 'amd64' : process.arch, os: 'linux' },
      annotations: {
        'org.opencontainers.image.ref.name': image.name,
        'io.containerd.image.name': image.name,
      },
    });
    built.push({ name: image.name, manifestDigest: manifestBlob.digest, configDigest: configBlob.digest });
  }
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(dir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests }));
  return built;
}

/** Packs a layout directory into the tar that `ctr images import` reads. */
export async function tarLayout(dir: string, outFile: string): Promise<void> {
  await createTar({ cwd: dir, file: outFile, portable: true, mtime: new Date(0) }, [
    'oci-layout',
    'index.json',
    'blobs',
  ]);
}

/** The `manifest.json` of a docker-archive naming the images of an OCI layout's index (pure). */
export function dockerArchiveManifest(
  index: { manifests: { digest: string; annotations?: Record<string, string> }[] },
  manifestOf: (digest: string) => { config: { digest: string }; layers: { digest: string }[] },
): { Config: string; RepoTags: string[]; Layers: string[] }[] {
  const blob = (digest: string): string => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  return index.manifests.map((entry) => {
    const name = entry.annotations?.['org.opencontainers.image.ref.name'];
    if (!name) throw new Error(`index.json: manifest ${entry.digest} has no image name annotation`);
    const manifest = manifestOf(entry.digest);
    return {
      Config: blob(manifest.config.digest),
      RepoTags: [name],
      Layers: manifest.layers.map((l) => blob(l.digest)),
    };
  });
}

/**
 * Packs a layout directory as the docker-archive `docker load` and `podman load` read: the same
 * blobs (gzip layers are fine for both) with a manifest.json naming each image.
 */
export async function tarDockerArchive(dir: string, outFile: string): Promise<void> {
  const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as Parameters<
    typeof dockerArchiveManifest
  >[0];
  const manifests = new Map<string, ReturnType<Parameters<typeof dockerArchiveManifest>[1]>>();
  for (const m of index.manifests)
    manifests.set(
      m.digest,
      JSON.parse(await readFile(join(dir, 'blobs', 'sha256', m.digest.slice('sha256:'.length)), 'utf8')),
    );
  await writeFile(
    join(dir, 'manifest.json'),
    JSON.stringify(dockerArchiveManifest(index, (d) => manifests.get(d)!)),
  );
  await createTar({ cwd: dir, file: outFile, portable: true, mtime: new Date(0) }, [
    'manifest.json',
    'blobs',
  ]);
}
