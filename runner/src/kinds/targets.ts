// Executes the target plan of kinds/target-plan.ts: reads each stack's state, connects over the
// configured transport, asks the runtime its version and checks the bench image. Every decision
// (labels, handlers, what the result records) is made by the pure functions there.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Component, Config, HostFix, Target } from '@runtime-bench/schemas';
import { createCriClient } from '../cri/client.ts';
import type { CriClient, VersionInfo } from '../cri/types.ts';
import { RbError, errorMessage } from '../errors.ts';
import { readBuildRecord } from '../install/build.ts';
import { ociVersion } from '../stack/discover.ts';
import { which } from '../util/path-search.ts';
import { stackAnswers } from '../stack/manager.ts';
import { readStackState, stackStateDir, type StackState } from '../stack/state.ts';
import { guessOciKind } from '../stack/versions.ts';
import type { ResolvedTarget } from '../suites/types.ts';
import {
  describeEndpoint,
  planEndpoints,
  resolveHandlers,
  targetField,
  type EndpointPlan,
  type OciInfo,
} from './target-plan.ts';

export { endpointLabels } from './target-plan.ts';

/** A config target made concrete: a connected client, its handlers and what the result records. */
export interface PreparedEndpoint {
  client: CriClient;
  /** The CRI socket path (no scheme). */
  socket: string;
  stack: StackState | null;
  version: VersionInfo;
  logDir: string;
  targets: { resolved: ResolvedTarget; record: Target }[];
  components: Component[];
  hostFixes: HostFix[];
}

/** Connects to every configured endpoint and resolves its handlers, failing early with the field's name. */
export async function prepareEndpoints(config: Config, runId: string): Promise<PreparedEndpoint[]> {
  const prepared: PreparedEndpoint[] = [];
  try {
    for (const plan of planEndpoints(config)) prepared.push(await prepareEndpoint(config, plan, runId));
  } catch (error) {
    for (const p of prepared) p.client.close();
    throw error;
  }
  return prepared;
}

async function locate(plan: EndpointPlan): Promise<{ socket: string; stack: StackState | null }> {
  if (plan.source.kind === 'endpoint') return { socket: plan.source.socket, stack: null };
  const name = plan.source.name;
  const stack = await readStackState(stackStateDir(name));
  if (!stack || !(await stackAnswers(stack))) {
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${targetField(plan.index, 'stack')}: the local stack "${name}" is not up`,
      `run \`runtime-bench stack up${name === 'default' ? '' : ` --name ${name}`}\` first, or set ${targetField(plan.index, 'endpoint')}`,
    );
  }
  if (stack.cri !== plan.cri) {
    throw new RbError(
      'CONFIG_INVALID',
      `${targetField(plan.index, 'cri')}: the local stack "${name}" runs ${stack.cri}, not ${plan.cri}`,
      `set ${targetField(plan.index, 'cri')}: ${stack.cri}, or bring up a ${plan.cri} stack (\`runtime-bench stack up --cri ${plan.cri} --name …\`)`,
    );
  }
  return { socket: stack.socket, stack };
}

async function connect(plan: EndpointPlan, socket: string, timeoutSeconds: number): Promise<CriClient> {
  if (plan.transport !== 'crictl') return createCriClient(plan.transport, socket, { timeoutSeconds });
  const crictl = await which(plan.crictl);
  if (!crictl)
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${targetField(plan.index, 'crictl')}: "${plan.crictl}" is not an executable on PATH`,
      'install crictl or use transport: grpc',
    );
  return createCriClient('crictl', socket, { timeoutSeconds, crictl });
}

async function prepareEndpoint(config: Config, plan: EndpointPlan, runId: string): Promise<PreparedEndpoint> {
  const { socket, stack } = await locate(plan);
  const client = await connect(plan, socket, config.callTimeoutSeconds);
  try {
    let version: VersionInfo;
    try {
      version = await client.version();
    } catch (error) {
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${targetField(plan.index, plan.source.kind)}: no CRI runtime answers on ${socket}: ${errorMessage(error)}`,
        'check that the runtime is running and the socket path is right',
      );
    }
    const handlers: { name: string; oci: OciInfo }[] = [];
    for (const name of resolveHandlers(plan, stack)) handlers.push({ name, oci: await ociInfo(name, stack) });
    const criBuild = stack ? await readBuildRecord(stack.daemon.path) : null;
    const { targets, components } = describeEndpoint(
      plan,
      socket,
      version,
      stack,
      handlers,
      criBuild ?? undefined,
    );
    for (const image of [config.images.bench]) {
      if (!(await client.imageStatus(image))) {
        throw new RbError(
          'TARGET_UNAVAILABLE',
          `images.bench: image "${image}" is not present on ${socket}`,
          stack
            ? 'run `runtime-bench stack down` and `stack up` again to rebuild and import it'
            : 'import it, e.g. from the images.tar a local stack writes (`ctr -n k8s.io images import`); images are never pulled during a run',
        );
      }
    }
    const logDir = join(stack ? join(stack.stateDir, 'logs') : join(tmpdir(), 'runtime-bench-logs'), runId);
    return { client, socket, stack, version, logDir, targets, components, hostFixes: stack?.hostFixes ?? [] };
  } catch (error) {
    client.close();
    throw error;
  }
}

async function ociInfo(handler: string, stack: StackState | null): Promise<OciInfo> {
  const h = stack?.handlers.find((s) => s.name === handler);
  if (h) {
    const build = await readBuildRecord(h.binary);
    return {
      name: h.kind,
      version: h.version,
      path: h.binary,
      detail: h.versionOutput.split('\n')[0] ?? '',
      ...(build ? { build } : {}),
    };
  }
  // An endpoint we did not configure: the handler name usually is the runtime's name.
  const kind = guessOciKind(handler) ?? handler;
  const binary = await which(kind);
  if (!binary) return { name: kind, version: 'unknown', path: null };
  const v = await ociVersion(kind, binary);
  return 'error' in v
    ? { name: kind, version: 'unknown', path: binary }
    : { name: kind, version: v.version, path: binary, detail: v.output.split('\n')[0] ?? '' };
}
