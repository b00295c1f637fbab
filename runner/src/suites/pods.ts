import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerConfig, ContainerStatus, PodSandboxConfig } from '../cri/types.ts';
import { NamespaceMode } from '../cri/types.ts';
import { sleep } from '../util/exec.ts';
import { InterruptedError, type BenchmarkContext } from './types.ts';

export const RUN_LABEL = 'runtime-bench.run-id';

export function runLabel(runId: string): Record<string, string> {
  return { [RUN_LABEL]: runId };
}

/** A fresh pod config: unique uid and log directory (CRI logs append when a path repeats). */
export function podConfig(ctx: BenchmarkContext, purpose: string): PodSandboxConfig {
  const uid = randomBytes(8).toString('hex');
  return {
    metadata: { name: `rb-${purpose}-${uid.slice(0, 6)}`, uid, namespace: 'runtime-bench', attempt: 0 },
    hostname: `rb-${purpose}`.slice(0, 63),
    logDirectory: join(ctx.logDir, uid),
    labels: { ...runLabel(ctx.runId), 'runtime-bench.purpose': purpose },
    // A PID namespace per container, as the kubelet sets it; CRI-O needs it without CAP_SYS_RESOURCE.
    linux: { securityContext: { namespaceOptions: { pid: NamespaceMode.CONTAINER } } },
  };
}

export function containerConfig(
  ctx: BenchmarkContext,
  name: string,
  command: string[],
  extra: Partial<ContainerConfig> = {},
): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image: ctx.images.bench },
    command,
    logPath: `${name}-${randomBytes(4).toString('hex')}.log`,
    labels: runLabel(ctx.runId),
    linux: {},
    ...extra,
  };
}

/** Times one awaited call with the monotonic clock, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** Polls ContainerStatus until the container exited, the deadline passed or the run was interrupted. */
export async function waitForExit(
  ctx: BenchmarkContext,
  containerId: string,
  timeoutMs: number,
  pollMs = 50,
): Promise<ContainerStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ctx.signal.aborted) throw new InterruptedError();
    const status = await ctx.cri.containerStatus(containerId);
    if (status.state === 'CONTAINER_EXITED') return status;
    if (Date.now() > deadline)
      throw new Error(
        `container did not exit within ${Math.round(timeoutMs / 1000)} s (state ${status.state})`,
      );
    await sleep(pollMs);
  }
}

/** The container's CRI log file (the path the runtime reports, or the one we asked for). */
export async function readContainerLog(
  pod: PodSandboxConfig,
  container: ContainerConfig,
  status?: ContainerStatus,
): Promise<string> {
  const path = status?.logPath || join(pod.logDirectory ?? '', container.logPath ?? '');
  return readFile(path, 'utf8');
}

/** Best-effort, untimed removal of a pod after a failed iteration; errors are the tracker's to retry. */
export async function discardPod(ctx: BenchmarkContext, podId: string): Promise<void> {
  try {
    await ctx.cri.stopPodSandbox(podId);
    await ctx.cri.removePodSandbox(podId);
    ctx.tracker.podRemoved(podId);
  } catch {
    /* left in the tracker: cleaned up at the end of the run */
  }
}
