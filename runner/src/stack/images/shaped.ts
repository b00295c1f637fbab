// Builds an image of a shape plan (shapes.ts) offline and pushes it to a stack's registry: seeded
// filler files layer by layer, each layer streamed through tar → sha256 (diff_id) → gzip or zstd
// → sha256 (digest) straight into an OCI layout, so a 1 GB image never sits in memory; then
// `skopeo copy` to the registry. The base layer carries a static busybox so the image runs.
import { createCipheriv, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, open, realpath, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants as zc, createGzip, createZstdCompress } from 'node:zlib';
import { create as createTar } from 'tar';
import { exec } from '../../util/exec.ts';
import { registryPaths } from '../registry-config.ts';
import { BENCH_STOP_SIGNAL } from './build.ts';
import { LAYER_MEDIA_TYPE, listTree, writeImageLayout, type Layer } from './layout.ts';
import type { FilePlan, ImagePlan, LayerCompression } from './shapes.ts';

const CHUNK = 1 << 20;

/**
 * Writes one planned file: AES-128-CTR keystream keyed by the file's seed (incompressible), or
 * that keystream folded onto 8 letters (3 bits of entropy per byte: gzip and zstd shrink it to
 * about 40 %, as they do binaries and text).
 */
export async function writePlannedFile(root: string, file: FilePlan): Promise<void> {
  const path = join(root, file.path);
  await mkdir(join(path, '..'), { recursive: true });
  const key = createHash('sha256').update(file.seed).digest().subarray(0, 16);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16, 0));
  const handle = await open(path, 'w');
  try {
    const zeros = Buffer.alloc(CHUNK);
    for (let done = 0; done < file.bytes;) {
      const n = Math.min(CHUNK, file.bytes - done);
      const chunk = cipher.update(n === CHUNK ? zeros : zeros.subarray(0, n));
      if (file.content === 'compressible')
        for (let i = 0; i < chunk.length; i++) chunk[i] = 0x61 + (chunk[i]! & 7);
      await handle.write(chunk);
      done += n;
    }
  } finally {
    await handle.close();
  }
}

/** The base layer's runnable part: static busybox as sh, sleep and true. */
async function addBusybox(root: string, busybox: string): Promise<void> {
  await mkdir(join(root, 'bin'), { recursive: true });
  await copyFile(await realpath(busybox), join(root, 'bin', 'busybox'));
  await chmod(join(root, 'bin', 'busybox'), 0o755);
  for (const applet of ['sh', 'sleep', 'true', 'cat']) await symlink('busybox', join(root, 'bin', applet));
  for (const dir of ['proc', 'sys', 'dev', 'tmp', 'etc']) await mkdir(join(root, dir), { recursive: true });
}

function hashing(hash: ReturnType<typeof createHash>, counter?: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      if (counter) counter.bytes += chunk.length;
      callback(null, chunk);
    },
  });
}

function compressor(kind: LayerCompression): Transform {
  // Levels as the usual build tools default to them (gzip 6, zstd 3).
  return kind === 'gzip'
    ? createGzip({ level: 6 })
    : createZstdCompress({ params: { [zc.ZSTD_c_compressionLevel]: 3 } });
}

/** Streams the directory `root` as a reproducible layer into the layout's blob directory. */
async function streamLayer(root: string, blobsDir: string, kind: LayerCompression): Promise<Layer> {
  const diff = createHash('sha256');
  const blob = createHash('sha256');
  const size = { bytes: 0 };
  const tmp = join(blobsDir, `.partial-${process.pid}`);
  const tar = createTar(
    { cwd: root, portable: true, mtime: new Date(0), noDirRecurse: true, follow: false },
    await listTree(root),
  ) as unknown as AsyncIterable<Buffer>;
  await pipeline(tar, hashing(diff), compressor(kind), hashing(blob, size), createWriteStream(tmp));
  const digest = blob.digest('hex');
  await rename(tmp, join(blobsDir, digest));
  return {
    diffId: `sha256:${diff.digest('hex')}`,
    digest: `sha256:${digest}`,
    size: size.bytes,
    mediaType: LAYER_MEDIA_TYPE[kind],
  };
}

/** The full reference of a planned image in a registry at `address`. */
export function imageReference(address: string, plan: Pick<ImagePlan, 'repository' | 'tag'>): string {
  return `${address}/${plan.repository}:${plan.tag}`;
}

/** Builds the planned image into an OCI layout below `workDir`; returns the layout directory. */
export async function buildShapedImage(plan: ImagePlan, workDir: string, busybox: string): Promise<string> {
  const layoutDir = join(workDir, 'layout');
  const blobsDir = join(layoutDir, 'blobs', 'sha256');
  await mkdir(blobsDir, { recursive: true });
  const layers: Layer[] = [];
  for (const layer of plan.layers) {
    // One layer's files on disk at a time: the large image needs its biggest layer, not 1 GB.
    const root = join(workDir, `layer-${layer.index}`);
    await mkdir(root, { recursive: true });
    if (layer.index === 0) await addBusybox(root, busybox);
    for (const file of layer.files) await writePlannedFile(root, file);
    layers.push(await streamLayer(root, blobsDir, plan.compression));
    await rm(root, { recursive: true, force: true });
  }
  await writeImageLayout(layoutDir, [
    {
      name: `${plan.repository}:${plan.tag}`,
      layers,
      entrypoint: [],
      cmd: ['/bin/sleep', '3600'],
      stopSignal: BENCH_STOP_SIGNAL,
      createdBy: 'runtime-bench image.* (seeded filler, built offline)',
    },
  ]);
  return layoutDir;
}

/**
 * Pushes the layout's image to the stack's registry with skopeo, which reads only the stack's
 * registries.conf (the registry marked insecure: plain HTTP on loopback), its policy and an empty
 * registries.d, never the host's.
 */
export async function pushLayout(
  stateDir: string,
  skopeo: string,
  layoutDir: string,
  layoutRef: string,
  destination: string,
): Promise<void> {
  const paths = registryPaths(stateDir);
  const tmp = join(paths.dir, 'tmp');
  await mkdir(paths.registriesD, { recursive: true });
  await mkdir(tmp, { recursive: true });
  await exec(
    skopeo,
    [
      '--policy',
      paths.policyPath,
      '--registries.d',
      paths.registriesD,
      '--tmpdir',
      tmp,
      'copy',
      '--quiet',
      '--preserve-digests',
      '--dest-tls-verify=false',
      `oci:${layoutDir}:${layoutRef}`,
      `docker://${destination}`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: paths.home,
        CONTAINERS_REGISTRIES_CONF: paths.registriesConf,
        TMPDIR: tmp,
      },
    },
  );
}

/** Builds the planned image in a scratch directory below the stack's registry and pushes it. */
export async function buildAndPush(
  stateDir: string,
  plan: ImagePlan,
  address: string,
  tools: { skopeo: string; busybox: string },
): Promise<void> {
  const work = await mkdtemp(join(registryPaths(stateDir).dir, 'build-'));
  try {
    const layoutDir = await buildShapedImage(plan, work, tools.busybox);
    await pushLayout(
      stateDir,
      tools.skopeo,
      layoutDir,
      `${plan.repository}:${plan.tag}`,
      imageReference(address, plan),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
