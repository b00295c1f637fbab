import type { LifecycleParameters } from '@runtime-bench/schemas';
import { errorMessage } from '../errors.ts';
import { containerConfig, discardPod, podConfig, timed } from './pods.ts';
import type { Benchmark, IterationOutcome } from './types.ts';

/** The CRI calls of one pod lifecycle, in the order a lifecycle makes them. */
export const LIFECYCLE_CALLS = [
  'RunPodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
  'StopPodSandbox',
  'RemovePodSandbox',
] as const;
type Call = (typeof LIFECYCLE_CALLS)[number];

/** TouchStone's four phases, each the sum of the CRI calls it is made of. */
export const PHASES: Record<string, readonly Call[]> = {
  create: ['RunPodSandbox', 'CreateContainer'],
  run: ['StartContainer'],
  'create-and-run': ['RunPodSandbox', 'CreateContainer', 'StartContainer'],
  destroy: ['StopContainer', 'RemoveContainer', 'StopPodSandbox', 'RemovePodSandbox'],
};

/** Phase values from the call latencies of one iteration; a phase missing any of its calls is absent. */
export function phaseValues(calls: Partial<Record<Call, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [phase, parts] of Object.entries(PHASES)) {
    if (parts.every((p) => calls[p] !== undefined)) out[phase] = parts.reduce((sum, p) => sum + calls[p]!, 0);
  }
  return out;
}

export const lifecycleBenchmark: Benchmark<LifecycleParameters> = {
  definition: {
    name: 'operations.container.lifecycle',
    description:
      "Latency of each CRI call in the life of one pod with one long-running container (busybox sleep), and TouchStone's phases create, run, create-and-run and destroy. Client-side time of each call over the chosen transport.",
    origin: ['touchstone'],
    metrics: [
      ...LIFECYCLE_CALLS.map((call) => ({
        name: call,
        unit: 'ms' as const,
        direction: 'lower' as const,
        description: `${call} latency`,
      })),
      { name: 'create', unit: 'ms', direction: 'lower', description: 'RunPodSandbox + CreateContainer' },
      { name: 'run', unit: 'ms', direction: 'lower', description: 'StartContainer' },
      { name: 'create-and-run', unit: 'ms', direction: 'lower', description: 'create + run' },
      {
        name: 'destroy',
        unit: 'ms',
        direction: 'lower',
        description: 'StopContainer + RemoveContainer + StopPodSandbox + RemovePodSandbox',
      },
    ],
  },
  parameters: (config) => config.parameters['operations.container.lifecycle'],
  async iterate(ctx, params): Promise<IterationOutcome> {
    const calls: Partial<Record<Call, number>> = {};
    const errors: Record<string, string> = {};
    const pod = podConfig(ctx, 'lifecycle');
    const container = containerConfig(ctx, 'sleeper', params.command);
    let podId: string | undefined;
    let containerId: string | undefined;
    const steps: [Call, () => Promise<unknown>][] = [
      [
        'RunPodSandbox',
        async () => {
          podId = await ctx.cri.runPodSandbox(pod, ctx.target.handler);
          ctx.tracker.addPod(podId);
        },
      ],
      ['CreateContainer', async () => (containerId = await ctx.cri.createContainer(podId!, container, pod))],
      ['StartContainer', () => ctx.cri.startContainer(containerId!)],
      ['StopContainer', () => ctx.cri.stopContainer(containerId!, params.stopTimeoutSeconds)],
      ['RemoveContainer', () => ctx.cri.removeContainer(containerId!)],
      ['StopPodSandbox', () => ctx.cri.stopPodSandbox(podId!)],
      [
        'RemovePodSandbox',
        async () => {
          await ctx.cri.removePodSandbox(podId!);
          ctx.tracker.podRemoved(podId!);
        },
      ],
    ];
    for (const [call, step] of steps) {
      try {
        calls[call] = (await timed(step)).ms;
      } catch (error) {
        const message = errorMessage(error);
        errors[call] = message;
        for (const [phase, parts] of Object.entries(PHASES))
          if (parts.includes(call)) errors[phase] = `${call} failed: ${message}`;
        if (podId) await discardPod(ctx, podId);
        return { values: { ...calls }, errors, failure: `${call}: ${message}` };
      }
    }
    return { values: { ...calls, ...phaseValues(calls) }, errors };
  },
};
