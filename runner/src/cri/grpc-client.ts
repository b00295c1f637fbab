import { credentials, loadPackageDefinition, Metadata, type ServiceError, type Client } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
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

const PROTO_PATH = fileURLToPath(new URL('./proto/cri-subset.proto', import.meta.url));

type Unary = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: Date },
  callback: (error: ServiceError | null, response: unknown) => void,
) => void;
type ServiceClient = Client & Record<string, Unary>;
type ServiceCtor = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => ServiceClient;

let cachedServices: { runtime: ServiceCtor; image: ServiceCtor } | undefined;

function services(): { runtime: ServiceCtor; image: ServiceCtor } {
  if (!cachedServices) {
    const definition = loadSync(PROTO_PATH, {
      keepCase: false,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const pkg = loadPackageDefinition(definition) as unknown as {
      runtime: { v1: { RuntimeService: ServiceCtor; ImageService: ServiceCtor } };
    };
    cachedServices = { runtime: pkg.runtime.v1.RuntimeService, image: pkg.runtime.v1.ImageService };
  }
  return cachedServices;
}

/** `unix:///path` for a bare socket path; grpc-js understands the unix: scheme natively. */
export function grpcAddress(endpoint: string): string {
  return endpoint.startsWith('unix://') ? endpoint : `unix://${endpoint}`;
}

interface Raw {
  [key: string]: unknown;
}

/** CRI over its gRPC unix socket, in-process: the transport for timed calls (no process start per call). */
export class GrpcCriClient implements CriClient {
  readonly transport = 'grpc' as const;
  readonly endpoint: string;
  private readonly runtime: ServiceClient;
  private readonly image: ServiceClient;
  private readonly timeoutMs: number;

  constructor(endpoint: string, timeoutSeconds = 120) {
    this.endpoint = grpcAddress(endpoint);
    const { runtime, image } = services();
    const options = {
      'grpc.max_receive_message_length': 16 * 1024 * 1024,
      // Neither belongs in a timed call: channelz records every call's trace for debugging, and
      // a transparent retry would time two attempts as one. Both cost CPU on every call.
      'grpc.enable_channelz': 0,
      'grpc.enable_retries': 0,
    };
    this.runtime = new runtime(this.endpoint, credentials.createInsecure(), options);
    // Share the channel: both services live on the same socket.
    this.image = new image(this.endpoint, credentials.createInsecure(), {
      ...options,
      channelOverride: this.runtime.getChannel(),
    });
    this.timeoutMs = timeoutSeconds * 1000;
  }

  private call<T = Raw>(
    client: ServiceClient,
    method: string,
    request: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const fn = client[method];
      if (!fn) throw new Error(`unknown CRI method ${method}`);
      fn.call(
        client,
        request,
        new Metadata(),
        { deadline: new Date(Date.now() + timeoutMs) },
        (error, response) => {
          if (error) reject(new CriCallError(method, error.details || error.message, error.code));
          else resolve(response as T);
        },
      );
    });
  }

  async version(): Promise<VersionInfo> {
    const r = await this.call<VersionInfo>(this.runtime, 'Version', { version: 'v1' });
    return {
      version: r.version,
      runtimeName: r.runtimeName,
      runtimeVersion: r.runtimeVersion,
      runtimeApiVersion: r.runtimeApiVersion,
    };
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler: string): Promise<string> {
    const r = await this.call<{ podSandboxId: string }>(this.runtime, 'RunPodSandbox', {
      config,
      runtimeHandler,
    });
    return r.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.call(this.runtime, 'StopPodSandbox', { podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.call(this.runtime, 'RemovePodSandbox', { podSandboxId });
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const r = await this.call<{ status: Raw }>(this.runtime, 'PodSandboxStatus', { podSandboxId });
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
    const r = await this.call<{ items: Raw[] }>(this.runtime, 'ListPodSandbox', {
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
    const r = await this.call<{ containerId: string }>(this.runtime, 'CreateContainer', {
      podSandboxId,
      config: asKubeletSends(config, sandboxConfig),
      sandboxConfig,
    });
    return r.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.call(this.runtime, 'StartContainer', { containerId });
  }

  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.call(
      this.runtime,
      'StopContainer',
      { containerId, timeout: timeoutSeconds },
      this.timeoutMs + timeoutSeconds * 1000,
    );
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.call(this.runtime, 'RemoveContainer', { containerId });
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const r = await this.call<{ status: Raw }>(this.runtime, 'ContainerStatus', { containerId });
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
    await this.call(this.runtime, 'UpdateContainerResources', { containerId, linux });
  }

  async containerStats(containerId: string): Promise<ContainerStats> {
    const r = await this.call<{ stats: Raw | null }>(this.runtime, 'ContainerStats', { containerId });
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
      this.runtime,
      'ExecSync',
      { containerId, cmd, timeout: timeoutSeconds },
      this.timeoutMs + timeoutSeconds * 1000,
    );
    return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), exitCode: r.exitCode };
  }

  async imageStatus(image: string): Promise<ImageInfo | null> {
    const r = await this.call<{ image: Raw | null }>(this.image, 'ImageStatus', { image: { image } });
    if (!r.image) return null;
    return {
      id: String(r.image.id),
      repoTags: (r.image.repoTags as string[]) ?? [],
      size: String(r.image.size),
    };
  }

  /** Handler names the runtime reports (CRI Status; empty on runtimes older than containerd 2.0). */
  async runtimeHandlers(): Promise<string[]> {
    const r = await this.call<{ runtimeHandlers: Raw[] }>(this.runtime, 'Status', { verbose: false });
    return r.runtimeHandlers.map((h) => String(h.name)).filter(Boolean);
  }

  close(): void {
    this.runtime.close();
    this.image.close();
  }
}
