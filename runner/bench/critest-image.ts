// The image critest's containers run in runner/bench/critest-compare.ts: the stack's bench image
// plus one busybox applet. critest hard-codes its container command as `top`, which the bench image
// does not link; every other file, the single layer, the command and the stop signal are the bench
// image's, so the two sides create and start containers from the same content.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { StackState } from '../src/stack/state.ts';
import { BENCH_STOP_SIGNAL } from '../src/stack/images/build.ts';
import { buildLayer, tarLayout, writeImageLayout } from '../src/stack/images/layout.ts';
import { buildBenchRootfs } from '../src/stack/images/rootfs.ts';
import { exec } from '../src/util/exec.ts';
import { which } from '../src/util/path-search.ts';

export const CRITEST_IMAGE = 'localhost/runtime-bench/critest-bench:latest';

/** Builds the image into a temp dir and imports it into the containerd stack's image store. */
export async function importCritestImage(state: StackState, workDir: string): Promise<string> {
  if (state.cri !== 'containerd')
    throw new Error(
      `stack ${state.name} runs ${state.cri}: this check imports its image with ctr (containerd only)`,
    );
  const catatonit = await which('catatonit');
  const sysbench = await which('sysbench');
  const busybox = (await which('busybox')) ?? '/bin/busybox';
  if (!catatonit || !sysbench || !existsSync(busybox))
    throw new Error(
      'the bench image needs catatonit, sysbench and busybox-static on the host, as `stack up` does',
    );
  const dir = await mkdtemp(join(workDir, 'critest-image-'));
  try {
    const root = join(dir, 'root');
    await buildBenchRootfs(root, { catatonit, sysbench, busybox });
    await symlink('busybox', join(root, 'bin', 'top'));
    await writeImageLayout(join(dir, 'layout'), [
      {
        name: CRITEST_IMAGE,
        createdBy: 'runner/bench/critest-image.ts: the bench image plus bin/top for critest',
        layers: [await buildLayer(root)],
        entrypoint: [],
        cmd: ['/bin/sh'],
        stopSignal: BENCH_STOP_SIGNAL,
      },
    ]);
    const tar = join(dir, 'images.tar');
    await tarLayout(join(dir, 'layout'), tar);
    await exec(state.containerd.ctr, ['-a', state.socket, '-n', 'k8s.io', 'images', 'import', tar]);
    return CRITEST_IMAGE;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
