// Builds the stack's images offline from host binaries into an OCI image layout directory; each
// driver loads that layout into its own image store (containerd: ctr import; CRI-O: skopeo).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Component } from '@runtime-bench/schemas';
import { RbError } from '../../errors.ts';
import { exec } from '../../util/exec.ts';
import { which } from '../../util/path-search.ts';
import { parseSemver } from '../versions.ts';
import { buildLayer, writeImageLayout, type ImageSpec, type Layer } from './layout.ts';
import { buildBenchRootfs, buildLargeFillerRoots, buildPauseRootfs } from './rootfs.ts';

/**
 * The bench images' processes (a sleeping PID 1, sysbench) do not handle SIGTERM, so a graceful
 * stop only waits out the runtime's timeout: CRI-O's StopPodSandbox gives a running container
 * minutes before it kills it. SIGKILL as the image's stop signal ends them at once everywhere.
 */
export const BENCH_STOP_SIGNAL = 'SIGKILL';

export interface StackImages {
  pause: string;
  bench: string;
  /** The big image of startup.first-output (of `largeSizeMiB`; 0 or absent builds none). */
  large?: string | undefined;
  largeSizeMiB?: number | undefined;
}

export interface BuiltLayout {
  /** The OCI image layout directory (index annotated with each image's full name). */
  layoutDir: string;
  /** The full names of the images in the layout. */
  names: string[];
  /** Versions of the ingredients and the images' digests, recorded in every result. */
  components: Component[];
  /** Removes the build directory. */
  dispose: () => Promise<void>;
}

async function versionLine(command: string, args: string[]): Promise<string> {
  const r = await exec(command, args, { allowFailure: true });
  return `${r.stdout}${r.stderr}`.trim().split('\n')[0] ?? '';
}

/** Layers one after the other: a large image's layers are big, one at a time keeps memory low. */
async function buildLayers(roots: string[]): Promise<Layer[]> {
  const layers: Layer[] = [];
  for (const root of roots) layers.push(await buildLayer(root));
  return layers;
}

/** Builds the pause, bench (and large) images in a fresh directory below `parentDir`. */
export async function buildImageLayout(parentDir: string, images: StackImages): Promise<BuiltLayout> {
  const catatonit = await which('catatonit');
  const busybox = (await which('busybox')) ?? '/bin/busybox';
  const sysbench = await which('sysbench');
  if (!catatonit || !sysbench || !existsSync(busybox)) {
    throw new RbError(
      'IMAGE_BUILD',
      `image ingredients missing: ${[!catatonit && 'catatonit', !sysbench && 'sysbench', !existsSync(busybox) && 'busybox'].filter(Boolean).join(', ')}`,
      'apt-get install catatonit sysbench busybox-static',
    );
  }
  const work = await mkdtemp(join(parentDir, 'image-build-'));
  const dispose = (): Promise<void> => rm(work, { recursive: true, force: true });
  try {
    const ingredients = { catatonit, busybox, sysbench };
    await buildPauseRootfs(join(work, 'pause'), ingredients);
    await buildBenchRootfs(join(work, 'bench'), ingredients);
    const specs: ImageSpec[] = [
      {
        name: images.pause,
        layers: [await buildLayer(join(work, 'pause'))],
        entrypoint: ['/bin/pause', '-P'],
      },
      {
        name: images.bench,
        layers: [await buildLayer(join(work, 'bench'))],
        entrypoint: [],
        cmd: ['/bin/sh'],
        stopSignal: BENCH_STOP_SIGNAL,
      },
    ];
    if (images.large && (images.largeSizeMiB ?? 0) > 0) {
      specs.push({
        name: images.large,
        layers: await buildLayers([
          join(work, 'bench'),
          ...(await buildLargeFillerRoots(join(work, 'large'), images.largeSizeMiB!)),
        ]),
        entrypoint: [],
        cmd: ['/bin/sh'],
        stopSignal: BENCH_STOP_SIGNAL,
      });
    }
    const layoutDir = join(work, 'layout');
    const built = await writeImageLayout(layoutDir, specs);
    const sysbenchLine = await versionLine(sysbench, ['--version']);
    const busyboxLine = (await exec(busybox, ['--help'], { allowFailure: true })).stdout.split('\n')[0] ?? '';
    const catatonitLine = await versionLine(catatonit, ['--version']);
    const components: Component[] = [
      {
        name: 'sysbench',
        role: 'workload',
        version: parseSemver(sysbenchLine) ?? sysbenchLine,
        path: sysbench,
        detail: sysbenchLine,
      },
      {
        name: 'busybox',
        role: 'workload',
        version: parseSemver(busyboxLine) ?? 'unknown',
        path: busybox,
        detail: busyboxLine,
      },
      {
        name: 'catatonit',
        role: 'workload',
        version: parseSemver(catatonitLine) ?? 'unknown',
        path: catatonit,
        detail: catatonitLine,
      },
      ...built.map((b): Component => ({
        name: b.name,
        role: 'image',
        version: b.manifestDigest,
        detail: `config ${b.configDigest}`,
      })),
    ];
    return { layoutDir, names: specs.map((s) => s.name), components, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
