// Pure planning of a run's targets: labels, where each endpoint's socket comes from, which handlers
// it resolves to and what the result records about it. kinds/targets.ts executes the plan (reads the
// stack state, connects, asks the runtime) and hands the answers back to describeEndpoint.
import {
  criTargets,
  type Component,
  type ComponentBuild,
  type Config,
  type Target,
  type TargetConfig,
  type Transport,
} from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import type { VersionInfo } from '../cri/types.ts';
import type { StackState } from '../stack/state.ts';
import { parseSemver } from '../stack/versions.ts';
import type { ResolvedTarget } from '../suites/types.ts';

/** The config path of field `name` of target `index`, as error messages name it. */
export function targetField(index: number, name: string): string {
  return `targets[${index}].${name}`;
}

const duplicates = (labels: readonly string[], label: string): boolean =>
  labels.filter((l) => l === label).length > 1;

/**
 * Target labels: the configured name or the CRI name. Two endpoints that would share one are told
 * apart by their transport when that differs (`containerd-grpc`, `containerd-crictl`), otherwise
 * by their position (`containerd-1`, `containerd-2`).
 */
export function endpointLabels(
  targets: readonly Pick<TargetConfig, 'name' | 'cri' | 'transport'>[],
): string[] {
  const base = targets.map((t) => t.name ?? t.cri);
  const byTransport = base.map((b, i) => (duplicates(base, b) ? `${b}-${targets[i]!.transport}` : b));
  return byTransport.map((l, i) => (duplicates(byTransport, l) ? `${base[i]}-${i + 1}` : l));
}

/** Where one endpoint's CRI socket comes from, and how it is reached. */
export interface EndpointPlan {
  index: number;
  label: string;
  /** The CRI runtime the config expects; a local stack of the other one is refused. */
  cri: TargetConfig['cri'];
  transport: Transport;
  /** The crictl the config names (resolved on PATH by the executor) for transport "crictl". */
  crictl: string;
  source: { kind: 'endpoint'; socket: string } | { kind: 'stack'; name: string };
  handlers: 'all' | string[];
}

/** One plan per configured target, in config order. */
export function planEndpoints(config: Pick<Config, 'targets'>): EndpointPlan[] {
  // Kubernetes targets run through the cluster mode (kubernetes/execute.ts), never mixed with these;
  // engine targets may stand beside them, so `index` is the target's place in the config.
  const targets = criTargets(config.targets);
  const labels = endpointLabels(targets);
  return targets.map((t, k) => ({
    index: config.targets.indexOf(t),
    label: labels[k]!,
    cri: t.cri,
    transport: t.transport,
    crictl: t.crictl,
    source: t.endpoint
      ? { kind: 'endpoint', socket: t.endpoint.replace(/^unix:\/\//, '') }
      : { kind: 'stack', name: t.stack ?? 'default' },
    handlers: t.handlers,
  }));
}

/** The handlers a target benchmarks: the listed ones (checked against the stack) or all the stack has. */
export function resolveHandlers(plan: EndpointPlan, stack: StackState | null): string[] {
  const wanted = plan.handlers;
  if (wanted === 'all') {
    if (!stack)
      throw new RbError(
        'CONFIG_INVALID',
        `${targetField(plan.index, 'handlers')}: "all" needs a local stack; an endpoint's handlers must be listed`,
        `e.g. handlers: [runc]`,
      );
    return stack.handlers.map((h) => h.name);
  }
  if (stack) {
    wanted.forEach((h, j) => {
      if (!stack.handlers.some((s) => s.name === h)) {
        const skipped = stack.skippedHandlers.find((s) => s.name === h);
        throw new RbError(
          'CONFIG_INVALID',
          `${targetField(plan.index, `handlers[${j}]`)}: stack "${stack.name}" has no handler "${h}"${skipped ? ` (skipped: ${skipped.reason})` : ''}`,
          `available: ${stack.handlers.map((s) => s.name).join(', ')}`,
        );
      }
    });
  }
  return wanted;
}

/** What is known about one handler's OCI runtime (from the stack, or found on PATH). */
export interface OciInfo {
  name: string;
  version: string;
  path: string | null;
  detail?: string;
  /** How runtime-bench built it, when it did. */
  build?: ComponentBuild;
}

/** The targets and components one endpoint contributes to the result. */
export function describeEndpoint(
  plan: EndpointPlan,
  socket: string,
  version: VersionInfo,
  stack: StackState | null,
  handlers: readonly { name: string; oci: OciInfo }[],
  /** How runtime-bench built the stack's CRI daemon, when it did. */
  criBuild?: ComponentBuild,
): { targets: { resolved: ResolvedTarget; record: Target }[]; components: Component[] } {
  const criVersion = parseSemver(version.runtimeVersion) ?? version.runtimeVersion;
  const components: Component[] = [
    {
      name: version.runtimeName,
      role: 'cri',
      version: criVersion,
      ...(stack ? { path: stack.daemon.path } : {}),
      detail: `${version.runtimeName} ${version.runtimeVersion}, CRI ${version.runtimeApiVersion}`,
      ...(criBuild ? { build: criBuild } : {}),
    },
    ...(stack?.imageComponents ?? []),
  ];
  const targets = handlers.map(({ name, oci }) => {
    components.push({
      name: oci.name,
      role: 'oci',
      version: oci.version,
      ...(oci.path ? { path: oci.path } : {}),
      ...(oci.detail ? { detail: oci.detail } : {}),
      ...(oci.build ? { build: oci.build } : {}),
    });
    const id = `${plan.label}/${name}`;
    return {
      resolved: { id, handler: name },
      record: {
        id,
        cri: {
          name: version.runtimeName,
          version: criVersion,
          apiVersion: version.runtimeApiVersion,
          endpoint: `unix://${socket}`,
        },
        handler: name,
        oci: { name: oci.name, version: oci.version, path: oci.path },
        transport: plan.transport,
      },
    };
  });
  return { targets, components };
}
