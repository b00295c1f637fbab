import { createCipheriv } from 'node:crypto';
import { chmod, copyFile, mkdir, symlink, writeFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { exec } from '../../util/exec.ts';
import { RbError } from '../../errors.ts';

/** Shared libraries a dynamic binary loads, from `ldd` output: absolute paths, loader included. */
export function parseLdd(output: string): string[] {
  const libs: string[] = [];
  for (const line of output.split('\n')) {
    const arrow = /=>\s*(\/\S+)/.exec(line);
    if (arrow) libs.push(arrow[1]!);
    else {
      const bare = /^\s*(\/\S+)\s+\(0x/.exec(line);
      if (bare) libs.push(bare[1]!);
    }
  }
  return [...new Set(libs)];
}

/** busybox applets the bench image links; /bin/sh and the tools benchmarks use inside containers. */
export const BUSYBOX_APPLETS = [
  'sh',
  'ls',
  'cat',
  'echo',
  'sleep',
  'true',
  'false',
  'date',
  'dd',
  'nc',
  'ip',
  'ps',
  'hostname',
  'rm',
  'mkdir',
  'head',
  'tail',
  'wc',
  'sync',
  'env',
  'usleep',
  'seq',
  // adjtimex prints the wall clock in microseconds (busybox date has no %N): startup.first-output.
  'adjtimex',
  'df',
  'time',
  'timeout',
  'cut',
];

export interface ImageIngredients {
  catatonit: string;
  busybox: string;
  sysbench: string;
}

async function copyInto(root: string, hostPath: string, inImagePath = hostPath): Promise<void> {
  const dest = join(root, inImagePath);
  await mkdir(dirname(dest), { recursive: true });
  await copyFile(await realpath(hostPath), dest);
  await chmod(dest, 0o755);
}

/** The pause image's root: a static catatonit as /bin/pause (run with -P, as the Kubernetes pause does). */
export async function buildPauseRootfs(root: string, ing: ImageIngredients): Promise<void> {
  await copyInto(root, ing.catatonit, '/bin/pause');
}

/**
 * The bench image's root: busybox-static with its applets, sysbench with exactly the shared libraries
 * `ldd` lists (and the loader), a passwd file and a sticky /tmp. Built from host binaries: no registry.
 */
export async function buildBenchRootfs(root: string, ing: ImageIngredients): Promise<void> {
  await copyInto(root, ing.busybox, '/bin/busybox');
  for (const applet of BUSYBOX_APPLETS) await symlink('busybox', join(root, 'bin', applet));
  await copyInto(root, ing.sysbench, '/bin/sysbench');
  const ldd = await exec('ldd', [ing.sysbench], { allowFailure: true });
  if (ldd.exitCode !== 0) {
    throw new RbError(
      'IMAGE_BUILD',
      `ldd ${ing.sysbench} failed: ${ldd.stderr.trim()}`,
      'install sysbench from the distribution (apt-get install sysbench)',
    );
  }
  for (const lib of parseLdd(ldd.stdout)) await copyInto(root, lib);
  for (const dir of ['etc', 'proc', 'sys', 'dev', 'tmp', 'root', 'data'])
    await mkdir(join(root, dir), { recursive: true });
  await chmod(join(root, 'tmp'), 0o1777);
  await writeFile(
    join(root, 'etc', 'passwd'),
    'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n',
  );
  await writeFile(join(root, 'etc', 'group'), 'root:x:0:\nnogroup:x:65534:\n');
}

/** How the large image's filler is split: this many layers, files of at most 16 MiB each. */
export const LARGE_IMAGE_LAYERS = 4;
const FILLER_FILE_BYTES = 16 << 20;

/**
 * The filler layers of the large image (startup.first-output): `sizeMiB` of incompressible,
 * reproducible bytes (AES-CTR over zeros with a fixed key, so the digests never change) spread over
 * LARGE_IMAGE_LAYERS directories under /opt/filler. Stands in for a database image of a few hundred MB.
 * Returns the layer roots; the image is the bench root plus these.
 */
export async function buildLargeFillerRoots(base: string, sizeMiB: number): Promise<string[]> {
  const roots: string[] = [];
  const perLayer = Math.ceil((sizeMiB << 20) / LARGE_IMAGE_LAYERS);
  for (let layer = 0; layer < LARGE_IMAGE_LAYERS; layer++) {
    const root = join(base, `filler-${layer}`);
    const dir = join(root, 'opt', 'filler', `layer-${layer}`);
    await mkdir(dir, { recursive: true });
    const cipher = createCipheriv('aes-128-ctr', Buffer.alloc(16, layer + 1), Buffer.alloc(16, 0));
    for (let written = 0, file = 0; written < perLayer; file++) {
      const n = Math.min(FILLER_FILE_BYTES, perLayer - written);
      await writeFile(join(dir, `blob-${String(file).padStart(3, '0')}`), cipher.update(Buffer.alloc(n)));
      written += n;
    }
    roots.push(root);
  }
  return roots;
}
