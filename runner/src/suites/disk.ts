import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FILEIO_MODES, type DiskParameters } from '@runtime-bench/schemas';
import type { ContainerConfig } from '../cri/types.ts';
import {
  parseSysbenchFileio,
  parseSysbenchFileioPrepare,
  sizeToBytes,
  sysbenchFileioArgs,
} from '../sysbench/parse.ts';
import { finish, part, withPod } from './kit.ts';
import { containerConfig } from './pods.ts';
import type { Benchmark, BenchmarkContext, IterationOutcome } from './types.ts';
import { InterruptedError } from '../errors.ts';

/** Where the file set lives inside the container (the image has an empty /data). */
export const DATA_DIR = '/data';

/** The two metrics of one fileio mode. */
const modeMetrics = (mode: string): [string, string] => [`${mode}_mib_per_second`, `${mode}_total_time`];
const READS = new Set(['seqrd', 'rndrd']);

/** Available KiB of the file system of the one path `df -Pk <path>` was asked about. */
export function parseDfAvailableKiB(output: string): number {
  // POSIX format: a header, then "fs 1024-blocks used available capacity mounted-on" (maybe wrapped).
  const lines = output.trim().split('\n').slice(1).join(' ').trim().split(/\s+/);
  const available = Number(lines[3]);
  if (lines.length < 6 || !Number.isFinite(available))
    throw new Error(`cannot read free space from df output: ${output.trim() || '(empty)'}`);
  return available;
}

/** Bytes the file set needs: its total size plus the spare room asked for. */
export function requiredBytes(p: Pick<DiskParameters, 'totalSize' | 'spareMiB'>): number {
  return sizeToBytes(p.totalSize) + p.spareMiB * 1024 * 1024;
}

async function execOk(
  ctx: BenchmarkContext,
  id: string,
  script: string,
  timeoutSeconds: number,
): Promise<string> {
  if (ctx.signal.aborted) throw new InterruptedError();
  const r = await ctx.cri.execSync(id, ['/bin/sh', '-c', script], Math.ceil(timeoutSeconds));
  if (r.exitCode !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-2).join(' | ');
    throw new Error(`"${script}" exited with ${r.exitCode}: ${tail || '(no output)'}`);
  }
  return r.stdout;
}

export const diskBenchmark: Benchmark<DiskParameters> = {
  definition: {
    name: 'performance.disk',
    description:
      "sysbench fileio inside a container: per mode, a file set is prepared (in the container's writable layer, or in a host directory mounted into it), then the mode runs for a fixed number of requests: throughput in MiB/s and the total time. Free space is checked first; the files are removed afterwards. Reads right after prepare are largely served from the page cache, as in the studies.",
    origin: ['touchstone', 'kiit'],
    metrics: FILEIO_MODES.flatMap((mode) => {
      const [mibs, total] = modeMetrics(mode);
      return [
        {
          name: mibs,
          unit: 'MiB/s' as const,
          direction: 'higher' as const,
          description: `${mode}: MiB ${READS.has(mode) ? 'read' : 'written'} per second`,
        },
        {
          name: total,
          unit: 's' as const,
          direction: 'lower' as const,
          description: `${mode}: sysbench total time for the fixed number of requests`,
        },
      ];
    }),
  },
  parameters: (config) => config.parameters['performance.disk'],
  async iterate(ctx, params): Promise<IterationOutcome> {
    let hostDir: string | undefined;
    const extra: Partial<ContainerConfig> = {};
    try {
      return await withPod(
        ctx,
        'disk',
        params.modes.flatMap(modeMetrics),
        async (pod, gathered) => {
          const container = containerConfig(ctx, 'fileio', ['/bin/sleep', '36000'], {
            ...extra,
            workingDir: DATA_DIR,
          });
          const id = await ctx.cri.createContainer(pod.id, container, pod.config);
          await ctx.cri.startContainer(id);
          const need = requiredBytes(params);
          const freeKiB = parseDfAvailableKiB(
            await execOk(ctx, id, `df -Pk ${DATA_DIR}`, ctx.callTimeoutSeconds),
          );
          if (freeKiB * 1024 < need) {
            throw new Error(
              `not enough free space for the file set in ${params.location === 'host' ? hostDir : `the container's writable layer (${DATA_DIR})`}: need ${Math.ceil(need / 2 ** 20)} MiB (totalSize ${params.totalSize} + spareMiB ${params.spareMiB}), ${Math.floor(freeKiB / 1024)} MiB free`,
            );
          }
          const common = sysbenchFileioArgs(params).join(' ');
          // Writing the file set at a pessimistic 10 MiB/s bounds how long prepare may take.
          const prepareTimeout = ctx.callTimeoutSeconds + sizeToBytes(params.totalSize) / (10 * 2 ** 20);
          // A fresh file set per mode: sequential write recreates the files at the size it wrote, which
          // would break the modes after it; prepare and cleanup stay outside sysbench's own timing.
          const failures: (string | null)[] = [];
          for (const mode of params.modes) {
            const [mibs, total] = modeMetrics(mode);
            failures.push(
              await part(gathered, [mibs, total], mode, async () => {
                try {
                  parseSysbenchFileioPrepare(
                    await execOk(ctx, id, `cd ${DATA_DIR} && sysbench ${common} prepare`, prepareTimeout),
                  );
                  const out = await execOk(
                    ctx,
                    id,
                    `cd ${DATA_DIR} && sysbench ${common} --file-test-mode=${mode} --time=0 --events=${params.events} run`,
                    prepareTimeout,
                  );
                  const r = parseSysbenchFileio(out);
                  gathered.values[mibs] = READS.has(mode) ? r.readMiBps : r.writtenMiBps;
                  gathered.values[total] = r.totalTimeSeconds;
                } finally {
                  if (!ctx.signal.aborted)
                    await execOk(
                      ctx,
                      id,
                      `cd ${DATA_DIR} && sysbench ${common} cleanup`,
                      ctx.callTimeoutSeconds,
                    ).catch(() => undefined);
                }
              }),
            );
          }
          return finish(gathered, failures);
        },
        {
          prepare: async () => {
            if (params.location !== 'host') return;
            hostDir = join(params.hostDir, `runtime-bench-fileio-${randomBytes(6).toString('hex')}`);
            await mkdir(hostDir, { recursive: true });
            extra.mounts = [{ containerPath: DATA_DIR, hostPath: hostDir }];
          },
        },
      );
    } finally {
      // Removing the pod (withPod) removed the container and its writable layer with the files in it.
      if (hostDir) await rm(hostDir, { recursive: true, force: true });
    }
  },
};
