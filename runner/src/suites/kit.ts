import { stdoutOf } from '../cri/log.ts';
import type { ContainerConfig, ContainerStatus, PodSandboxConfig } from '../cri/types.ts';
import { errorMessage } from '../errors.ts';
import { podConfig, readContainerLog, waitForExit } from './pods.ts';
import type { BenchmarkContext } from './types.ts';

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
  const status = await waitForExit(ctx, id, expectedMs + ctx.callTimeoutSeconds * 1000);
  const log = await readContainerLog(pod.config, container, status).catch(() => '');
  const stdout = stdoutOf(log);
  if (!opts.keep) await ctx.cri.removeContainer(id);
  if (status.exitCode !== 0 && !opts.allowFailure) {
    const tail = stdout.trim().split('\n').slice(-2).join(' | ');
    throw new Error(
      `${container.command?.[0] ?? 'container'} exited with ${status.exitCode}${status.reason ? ` (${status.reason})` : ''}${tail ? `: ${tail}` : ''}`,
    );
  }
  return { id, status, stdout };
}

/** The metric names of a benchmark definition, in its order. */
export function metricNames(definition: { metrics: readonly { name: string }[] }): string[] {
  return definition.metrics.map((m) => m.name);
}

/** Every metric of `names` gets the same error message (a step they all depend on failed). */
export function errorsFor(names: readonly string[], message: string): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, message]));
}
