import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Component, Config, Target, HostFix } from '@runtime-bench/schemas';
import { CrictlClient } from '../cri/crictl-client.ts';
import { GrpcCriClient } from '../cri/grpc-client.ts';
import type { CriClient, VersionInfo } from '../cri/types.ts';
import { RbError, errorMessage } from '../errors.ts';
import { which, ociVersion } from '../stack/discover.ts';
import { stackAnswers } from '../stack/manager.ts';
import { readStackState, stackStateDir, type StackState } from '../stack/state.ts';
import { guessOciKind, parseSemver } from '../stack/versions.ts';
import type { ResolvedTarget } from '../suites/types.ts';

/** A config target made concrete: a connected client, its handlers and what the result records. */
export interface PreparedEndpoint {
  client: CriClient;
  stack: StackState | null;
  version: VersionInfo;
  logDir: string;
  targets: { resolved: ResolvedTarget; record: Target }[];
  components: Component[];
  hostFixes: HostFix[];
}

function field(index: number, name: string): string {
  return `targets[${index}].${name}`;
}

/** Target labels: the configured name or the CRI name, numbered when two endpoints would collide. */
export function endpointLabels(targets: Config['targets']): string[] {
  const base = targets.map((t) => t.name ?? t.cri);
  return base.map((label, i) => (base.filter((b) => b === label).length > 1 ? `${label}-${i + 1}` : label));
}

/** Connects to every configured endpoint and resolves its handlers, failing early with the field's name. */
export async function prepareEndpoints(config: Config, runId: string): Promise<PreparedEndpoint[]> {
  const labels = endpointLabels(config.targets);
  const prepared: PreparedEndpoint[] = [];
  try {
    for (const [i, t] of config.targets.entries())
      prepared.push(await prepareEndpoint(config, i, t, labels[i]!, runId));
  } catch (error) {
    for (const p of prepared) p.client.close();
    throw error;
  }
  return prepared;
}

async function prepareEndpoint(
  config: Config,
  i: number,
  t: Config['targets'][number],
  label: string,
  runId: string,
): Promise<PreparedEndpoint> {
  let stack: StackState | null = null;
  let socket: string;
  if (t.endpoint) {
    socket = t.endpoint.replace(/^unix:\/\//, '');
  } else {
    const name = t.stack ?? 'default';
    stack = await readStackState(stackStateDir(name));
    if (!stack || !(await stackAnswers(stack))) {
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(i, 'stack')}: the local stack "${name}" is not up`,
        `run \`runtime-bench stack up${name === 'default' ? '' : ` --name ${name}`}\` first, or set ${field(i, 'endpoint')}`,
      );
    }
    if (stack.cri !== t.cri) {
      throw new RbError(
        'CONFIG_INVALID',
        `${field(i, 'cri')}: the local stack "${name}" runs ${stack.cri}, not ${t.cri}`,
        `set ${field(i, 'cri')}: ${stack.cri}, or bring up a ${t.cri} stack (\`runtime-bench stack up --cri ${t.cri} --name …\`)`,
      );
    }
    socket = stack.socket;
  }
  let client: CriClient;
  if (t.transport === 'crictl') {
    const crictl = await which(t.crictl);
    if (!crictl)
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(i, 'crictl')}: "${t.crictl}" is not an executable on PATH`,
        'install crictl or use transport: grpc',
      );
    client = new CrictlClient(crictl, socket, config.callTimeoutSeconds);
  } else {
    client = new GrpcCriClient(socket, config.callTimeoutSeconds);
  }
  try {
    let version: VersionInfo;
    try {
      version = await client.version();
    } catch (error) {
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(i, t.endpoint ? 'endpoint' : 'stack')}: no CRI runtime answers on ${socket}: ${errorMessage(error)}`,
        'check that the runtime is running and the socket path is right',
      );
    }
    const handlers = resolveHandlers(i, t.handlers, stack);
    const components: Component[] = [
      {
        name: version.runtimeName,
        role: 'cri',
        version: parseSemver(version.runtimeVersion) ?? version.runtimeVersion,
        ...(stack ? { path: stack.daemon.path } : {}),
        detail: `${version.runtimeName} ${version.runtimeVersion}, CRI ${version.runtimeApiVersion}`,
      },
      ...(stack?.imageComponents ?? []),
    ];
    const targets: PreparedEndpoint['targets'] = [];
    for (const handler of handlers) {
      const oci = await ociInfo(handler, stack);
      components.push({
        name: oci.name,
        role: 'oci',
        version: oci.version,
        ...(oci.path ? { path: oci.path } : {}),
        ...(oci.detail ? { detail: oci.detail } : {}),
      });
      targets.push({
        resolved: { id: `${label}/${handler}`, handler },
        record: {
          id: `${label}/${handler}`,
          cri: {
            name: version.runtimeName,
            version: parseSemver(version.runtimeVersion) ?? version.runtimeVersion,
            apiVersion: version.runtimeApiVersion,
            endpoint: `unix://${socket}`,
          },
          handler,
          oci: { name: oci.name, version: oci.version, path: oci.path },
          transport: t.transport,
        },
      });
    }
    for (const image of [config.images.bench]) {
      const status = await client.imageStatus(image);
      if (!status) {
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
    return { client, stack, version, logDir, targets, components, hostFixes: stack?.hostFixes ?? [] };
  } catch (error) {
    client.close();
    throw error;
  }
}

function resolveHandlers(i: number, wanted: 'all' | string[], stack: StackState | null): string[] {
  if (wanted === 'all') {
    if (!stack)
      throw new RbError(
        'CONFIG_INVALID',
        `${field(i, 'handlers')}: "all" needs a local stack; an endpoint's handlers must be listed`,
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
          `${field(i, `handlers[${j}]`)}: stack "${stack.name}" has no handler "${h}"${skipped ? ` (skipped: ${skipped.reason})` : ''}`,
          `available: ${stack.handlers.map((s) => s.name).join(', ')}`,
        );
      }
    });
  }
  return wanted;
}

async function ociInfo(
  handler: string,
  stack: StackState | null,
): Promise<{ name: string; version: string; path: string | null; detail?: string }> {
  const h = stack?.handlers.find((s) => s.name === handler);
  if (h)
    return { name: h.kind, version: h.version, path: h.binary, detail: h.versionOutput.split('\n')[0] ?? '' };
  // An endpoint we did not configure: the handler name usually is the runtime's name.
  const kind = guessOciKind(handler) ?? handler;
  const binary = await which(kind);
  if (!binary) return { name: kind, version: 'unknown', path: null };
  const v = await ociVersion(kind, binary);
  return 'error' in v
    ? { name: kind, version: 'unknown', path: binary }
    : { name: kind, version: v.version, path: binary, detail: v.output.split('\n')[0] ?? '' };
}
