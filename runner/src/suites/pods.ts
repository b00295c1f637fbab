// Configs and single CRI objects: a pod, a container, their start, wait and removal. How an
// iteration strings them together (and what its errors become) is kit.ts's job.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stdoutOf } from '../cri/log.ts';
import type { ContainerConfig, ContainerStatus, PodSandboxConfig } from '../cri/types.ts';
import { NamespaceMode } from '../cri/types.ts';
import { errorMessage, InterruptedError } from '../errors.ts';
import { sleep } from '../util/exec.ts';
import type { BenchmarkContext } from './types.ts';

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

/** A pod made for one iteration, tracked for cleanup. */
export interface LivePod {
  config: PodSandboxConfig;
  id: string;
}

/** RunPodSandbox with tracking; the error names the call. */
export async function startPod(
  ctx: BenchmarkContext,
  purpose: string,
  config: PodSandboxConfig = podConfig(ctx, purpose),
): Promise<LivePod> {
  try {
    const id = await ctx.cri.runPodSandbox(config, ctx.target.handler);
    ctx.tracker.addPod(id);
    return { config, id };
  } catch (error) {
    throw new Error(`RunPodSandbox: ${errorMessage(error)}`, { cause: error });
  }
}

export interface Completed {
  id: string;
  status: ContainerStatus;
  /** The container's stdout as the CRI log recorded it. */
  stdout: string;
}

/** "<command> exited with <code> (<reason>): <last lines>" for a container that did not exit 0. */
export function exitFailure(command: string, status: ContainerStatus, stdout: string): Error {
  const tail = stdout.trim().split('\n').slice(-2).join(' | ');
  return new Error(
    `${command} exited with ${status.exitCode}${status.reason ? ` (${status.reason})` : ''}${tail ? `: ${tail}` : ''}`,
  );
}

/**
 * Creates and starts a container that runs to completion, waits for it and returns its status and
 * stdout; throws with the exit code and the last lines of output when it did not exit 0. The
 * container is removed afterwards unless `keep`.
 */
export async function runToCompletion(
  ctx: BenchmarkContext,
  pod: LivePod,
  container: ContainerConfig,
  expectedMs: number,
  opts: { keep?: boolean; allowFailure?: boolean } = {},
): Promise<Completed> {
  const id = await ctx.cri.createContainer(pod.id, container, pod.config);
  await ctx.cri.startContainer(id);
  return awaitCompletion(ctx, pod, container, id, expectedMs, opts);
}

/** The second half of runToCompletion, for a container started elsewhere (e.g. updated while it ran). */
export async function awaitCompletion(
  ctx: BenchmarkContext,
  pod: LivePod,
  container: ContainerConfig,
  id: string,
  expectedMs: number,
  opts: { keep?: boolean; allowFailure?: boolean } = {},
): Promise<Completed> {
  const status = await waitForExit(ctx, id, expectedMs + ctx.callTimeoutSeconds * 1000);
  const stdout = stdoutOf(await readContainerLog(pod.config, container, status).catch(() => ''));
  if (!opts.keep) await ctx.cri.removeContainer(id);
  if (status.exitCode !== 0 && !opts.allowFailure)
    throw exitFailure(container.command?.[0] ?? 'container', status, stdout);
  return { id, status, stdout };
}
