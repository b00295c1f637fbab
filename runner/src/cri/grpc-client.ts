import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';
import {
  CriCallError,
  type ContainerConfig,
  type ContainerStateName,
  type ContainerStats,
  type ContainerStatus,
  type CriClient,
  asKubeletSends,
  type ExecSyncResult,
  type ImageInfo,
  type LinuxContainerResources,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type PodSandboxSummary,
  type SandboxStateName,
  type VersionInfo,
} from './types.ts';
import { UnaryCallError, UnaryGrpcChannel } from './unary-grpc.ts';

const PROTO_PATH = fileURLToPath(new URL('./proto/cri-subset.proto', import.meta.url));

/** Request and response codec of one method, and its HTTP/2 path. */
interface MethodCodec {
  path: string;
  encode: (request: unknown) => Uint8Array;
  decode: (response: Uint8Array) => unknown;
}

// The message shapes of types.ts: camelCase fields, int64 as decimal strings, enums by name,
// absent fields filled with their defaults, bytes as Buffers.
const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };

let cachedMethods: Map<string, MethodCodec> | undefined;

/** Every method of the CRI subset, keyed "Service/Method" (e.g. "RuntimeService/Version"). */
function methods(): Map<string, MethodCodec> {
  if (!cachedMethods) {
    const root = new protobuf.Root().loadSync(PROTO_PATH, { keepCase: false });
    root.resolveAll();
    cachedMethods = new Map();
    for (const name of ['RuntimeService', 'ImageService']) {
      const service = root.lookupService(`runtime.v1.${name}`);
      for (const method of service.methodsArray) {
        const request = method.resolvedRequestType!;
        const response = method.resolvedResponseType!;
        cachedMethods.set(`${name}/${method.name}`, {
          path: `/runtime.v1.${name}/${method.name}`,
          encode: (value) => request.encode(request.fromObject(value as Record<string, unknown>)).finish(),
          decode: (bytes) => response.toObject(response.decode(bytes), TO_OBJECT),
        });
      }
    }
  }
  return cachedMethods;
}

/** PullImage's deadline in call timeouts (default 120 s → 20 minutes). */
export const PULL_DEADLINE_FACTOR = 10;

function imageInfo(raw: Raw): ImageInfo {
  return { id: String(raw.id), repoTags: (raw.repoTags as string[]) ?? [], size: String(raw.size) };
}

/** The socket path of an endpoint given as a path or `unix://` address. */
export function socketPath(endpoint: string): string {
  return endpoint.replace(/^unix:\/\//, '');
}

interface Raw {
  [key: string]: unknown;
}

type Service = 'RuntimeService' | 'ImageService';

/**
 * CRI over its gRPC unix socket, in-process: the transport for timed calls (no process start per
 * call). Calls go through UnaryGrpcChannel (unary-grpc.ts says why not grpc-js); encoding happens
 * before and decoding after the round trip, both inside the timed call as with any gRPC client.
 */
export class GrpcCriClient implements CriClient {
  readonly transport = 'grpc' as const;
  readonly endpoint: string;
  private readonly channel: UnaryGrpcChannel;
  private readonly timeoutMs: number;

  constructor(endpoint: string, timeoutSeconds = 120) {
    this.endpoint = `unix://${socketPath(endpoint)}`;
    this.channel = new UnaryGrpcChannel(socketPath(endpoint), { maxReceiveBytes: 16 * 1024 * 1024 });
    this.timeoutMs = timeoutSeconds * 1000;
  }

  private async call<T = Raw>(
    service: Service,
    method: string,
    request: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<T> {
    const codec = methods().get(`${service}/${method}`);
    if (!codec) throw new Error(`unknown CRI method ${service}/${method}`);
    try {
      return codec.decode(await this.channel.call(codec.path, codec.encode(request), timeoutMs)) as T;
    } catch (error) {
      if (error instanceof UnaryCallError) throw new CriCallError(method, error.message, error.code);
      throw error;
    }
  }

  async version(): Promise<VersionInfo> {
    const r = await this.call<VersionInfo>('RuntimeService', 'Version', { version: 'v1' });
    return {
      version: r.version,
      runtimeName: r.runtimeName,
      runtimeVersion: r.runtimeVersion,
      runtimeApiVersion: r.runtimeApiVersion,
    };
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler: string): Promise<string> {
    const r = await this.call<{ podSandboxId: string }>('RuntimeService', 'RunPodSandbox', {
      config,
      runtimeHandler,
    });
    return r.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.call('RuntimeService', 'StopPodSandbox', { podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.call('RuntimeService', 'RemovePodSandbox', { podSandboxId });
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const r = await this.call<{ status: Raw }>('RuntimeService', 'PodSandboxStatus', { podSandboxId });
    const s = r.status;
    return {
      id: String(s.id),
      state: s.state as SandboxStateName,
      createdAt: String(s.createdAt),
      ip: String((s.network as Raw | null)?.ip ?? ''),
      runtimeHandler: String(s.runtimeHandler ?? ''),
      labels: (s.labels as Record<string, string>) ?? {},
    };
  }

  async listPodSandbox(labelSelector?: Record<string, string>): Promise<PodSandboxSummary[]> {
    const r = await this.call<{ items: Raw[] }>('RuntimeService', 'ListPodSandbox', {
      filter: labelSelector ? { labelSelector } : undefined,
    });
    return r.items.map((p) => ({
      id: String(p.id),
      name: String((p.metadata as Raw | null)?.name ?? ''),
      state: p.state as SandboxStateName,
      labels: (p.labels as Record<string, string>) ?? {},
      runtimeHandler: String(p.runtimeHandler ?? ''),
    }));
  }

  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    const r = await this.call<{ containerId: string }>('RuntimeService', 'CreateContainer', {
      podSandboxId,
      config: asKubeletSends(config, sandboxConfig),
      sandboxConfig,
    });
    return r.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.call('RuntimeService', 'StartContainer', { containerId });
  }

  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.call(
      'RuntimeService',
      'StopContainer',
      { containerId, timeout: timeoutSeconds },
      this.timeoutMs + timeoutSeconds * 1000,
    );
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.call('RuntimeService', 'RemoveContainer', { containerId });
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const r = await this.call<{ status: Raw }>('RuntimeService', 'ContainerStatus', { containerId });
    const s = r.status;
    return {
      id: String(s.id),
      state: s.state as ContainerStateName,
      createdAt: String(s.createdAt),
      startedAt: String(s.startedAt),
      finishedAt: String(s.finishedAt),
      exitCode: Number(s.exitCode),
      reason: String(s.reason ?? ''),
      message: String(s.message ?? ''),
      logPath: String(s.logPath ?? ''),
    };
  }

  async updateContainerResources(containerId: string, linux: LinuxContainerResources): Promise<void> {
    await this.call('RuntimeService', 'UpdateContainerResources', { containerId, linux });
  }

  async containerStats(containerId: string): Promise<ContainerStats> {
    const r = await this.call<{ stats: Raw | null }>('RuntimeService', 'ContainerStats', { containerId });
    const cpu = r.stats?.cpu as Raw | null | undefined;
    const memory = r.stats?.memory as Raw | null | undefined;
    const value = (v: unknown): string | null =>
      ((v as Raw | null | undefined)?.value as string | undefined) ?? null;
    return {
      cpuUsageCoreNanoSeconds: value(cpu?.usageCoreNanoSeconds),
      memoryWorkingSetBytes: value(memory?.workingSetBytes),
    };
  }

  async execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResult> {
    const r = await this.call<{ stdout: Buffer; stderr: Buffer; exitCode: number }>(
      'RuntimeService',
      'ExecSync',
      { containerId, cmd, timeout: timeoutSeconds },
      this.timeoutMs + timeoutSeconds * 1000,
    );
    return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), exitCode: r.exitCode };
  }

  async imageStatus(image: string): Promise<ImageInfo | null> {
    const r = await this.call<{ image: Raw | null }>('ImageService', 'ImageStatus', { image: { image } });
    return r.image ? imageInfo(r.image) : null;
  }

  async listImages(): Promise<ImageInfo[]> {
    const r = await this.call<{ images: Raw[] }>('ImageService', 'ListImages', {});
    return r.images.map(imageInfo);
  }

  async pullImage(image: string, sandboxConfig?: PodSandboxConfig): Promise<string> {
    // A pull moves up to gigabytes (several at once in image.concurrent-pulls): its deadline is
    // PULL_DEADLINE_FACTOR call timeouts, as the kubelet gives pulls far more time than other calls.
    const r = await this.call<{ imageRef: string }>(
      'ImageService',
      'PullImage',
      { image: { image }, ...(sandboxConfig ? { sandboxConfig } : {}) },
      this.timeoutMs * PULL_DEADLINE_FACTOR,
    );
    return r.imageRef;
  }

  async removeImage(image: string): Promise<void> {
    await this.call('ImageService', 'RemoveImage', { image: { image } });
  }

  /** Handler names the runtime reports (CRI Status; empty on runtimes older than containerd 2.0). */
  async runtimeHandlers(): Promise<string[]> {
    const r = await this.call<{ runtimeHandlers: Raw[] }>('RuntimeService', 'Status', { verbose: false });
    return r.runtimeHandlers.map((h) => String(h.name)).filter(Boolean);
  }

  close(): void {
    this.channel.close();
  }
}
