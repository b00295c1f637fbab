// The suite kit: the skeleton every benchmark iteration shares. The rule between the two modules:
// pods.ts makes configs and drives single CRI objects (a pod, a container); kit.ts shapes an
// iteration — it owns the pod's lifetime, turns errors into the outcome's error entries and
// failure, and lets interruptions through. A new benchmark family starts from withPod.
import type { PodSandboxConfig } from '../cri/types.ts';
import { errorMessage, InterruptedError } from '../errors.ts';
import { discardPod, startPod, type LivePod } from './pods.ts';
import type { BenchmarkContext, IterationOutcome } from './types.ts';

/** The metric names of a benchmark definition, in its order. */
export function metricNames(definition: { metrics: readonly { name: string }[] }): string[] {
  return definition.metrics.map((m) => m.name);
}

/** Every metric of `names` gets the same error message (a step they all depend on failed). */
export function errorsFor(names: readonly string[], message: string): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, message]));
}

/** What an iteration has gathered so far; the body of withPod fills it in. */
export interface Gathered {
  values: Record<string, number>;
  errors: Record<string, string>;
}

/**
 * One iteration in a fresh pod: `prepare` (optional, before the pod exists), RunPodSandbox, then
 * `body` with the pod; the pod is removed afterwards whatever happened. An error from any step is
 * a failed attempt whose message marks every metric of `metrics` that has no value yet; what the
 * body recorded before it failed is kept. An interruption is rethrown, never recorded.
 */
export async function withPod(
  ctx: BenchmarkContext,
  purpose: string,
  metrics: readonly string[],
  body: (pod: LivePod, gathered: Gathered) => Promise<IterationOutcome>,
  opts: { prepare?: () => Promise<void>; config?: PodSandboxConfig } = {},
): Promise<IterationOutcome> {
  const gathered: Gathered = { values: {}, errors: {} };
  let pod: LivePod | undefined;
  try {
    await opts.prepare?.();
    pod = await startPod(ctx, purpose, opts.config);
    return await body(pod, gathered);
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const message = errorMessage(error);
    const missing = metrics.filter((m) => !(m in gathered.values));
    return {
      values: gathered.values,
      errors: { ...errorsFor(missing, message), ...gathered.errors },
      failure: message,
    };
  } finally {
    if (pod) await discardPod(ctx, pod.id);
  }
}

/**
 * One part of an iteration (a mode, a direction, an image) whose failure marks only its own
 * metrics, with `label: ` before the message; the iteration goes on. Returns the failure message
 * (labelled) or null. An interruption is rethrown.
 */
export async function part(
  gathered: Gathered,
  metrics: readonly string[],
  label: string,
  fn: () => Promise<void>,
): Promise<string | null> {
  try {
    await fn();
    return null;
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const message = `${label}: ${errorMessage(error)}`;
    Object.assign(gathered.errors, errorsFor(metrics, message));
    return message;
  }
}

/** The outcome of an iteration from what it gathered: failed with the first failure, if any. */
export function finish(gathered: Gathered, failures: readonly (string | null)[]): IterationOutcome {
  const failure = failures.find((f) => f !== null);
  return failure ? { ...gathered, failure } : { ...gathered };
}
