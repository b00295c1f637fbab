import type { Transport } from '@runtime-bench/schemas';

// TypeScript shapes of the CRI messages runtime-bench uses, in the camelCase form protobufjs's
// toObject produces (grpc-client.ts) and crictl's JSON output uses. int64 values arrive as strings.

export const NamespaceMode = { POD: 0, CONTAINER: 1, NODE: 2 } as const;

export interface VersionInfo {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface PodSandboxConfig {
  metadata: { name: string; uid: string; namespace: string; attempt?: number };
  hostname?: string;
  logDirectory?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  linux?: {
    cgroupParent?: string;
    securityContext?: {
      namespaceOptions?: { network?: number; pid?: number; ipc?: number };
      privileged?: boolean;
    };
  };
}

export interface LinuxContainerResources {
  cpuPeriod?: number;
  cpuQuota?: number;
  cpuShares?: number;
  memoryLimitInBytes?: number;
  cpusetCpus?: string;
}

export interface ContainerConfig {
  metadata: { name: string; attempt?: number };
  image: { image: string; userSpecifiedImage?: string };
  command?: string[];
  args?: string[];
  workingDir?: string;
  envs?: { key: string; value: string }[];
  mounts?: { containerPath: string; hostPath: string; readonly?: boolean }[];
  labels?: Record<string, string>;
  logPath?: string;
  linux?: {
    resources?: LinuxContainerResources;
    securityContext?: {
      privileged?: boolean;
      namespaceOptions?: { network?: number; pid?: number; ipc?: number };
    };
  };
}

export type ContainerStateName =
  'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type SandboxStateName = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

export interface ContainerStatus {
  id: string;
  state: ContainerStateName;
  /** Nanoseconds since the epoch, as a decimal string (int64). */
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  reason: string;
  message: string;
  logPath: string;
}

export interface PodSandboxStatus {
  id: string;
  state: SandboxStateName;
  createdAt: string;
  ip: string;
  runtimeHandler: string;
  labels: Record<string, string>;
}

export interface PodSandboxSummary {
  id: string;
  name: string;
  state: SandboxStateName;
  labels: Record<string, string>;
  runtimeHandler: string;
}

export interface ContainerStats {
  /** Cumulative CPU time in nanoseconds, as a decimal string. */
  cpuUsageCoreNanoSeconds: string | null;
  memoryWorkingSetBytes: string | null;
}

export interface ExecSyncResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface ImageInfo {
  id: string;
  repoTags: string[];
  size: string;
}

/** The CRI calls runtime-bench makes, independent of how they reach the runtime. */
export interface CriClient {
  readonly transport: Transport;
  readonly endpoint: string;
  version(): Promise<VersionInfo>;
  runPodSandbox(config: PodSandboxConfig, runtimeHandler: string): Promise<string>;
  stopPodSandbox(podId: string): Promise<void>;
  removePodSandbox(podId: string): Promise<void>;
  podSandboxStatus(podId: string): Promise<PodSandboxStatus>;
  listPodSandbox(labelSelector?: Record<string, string>): Promise<PodSandboxSummary[]>;
  createContainer(podId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  stopContainer(containerId: string, timeoutSeconds: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  containerStatus(containerId: string): Promise<ContainerStatus>;
  updateContainerResources(containerId: string, resources: LinuxContainerResources): Promise<void>;
  containerStats(containerId: string): Promise<ContainerStats>;
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResult>;
  /** null when the image is not present on the runtime. */
  imageStatus(image: string): Promise<ImageInfo | null>;
  /** Every image the runtime's store holds. */
  listImages(): Promise<ImageInfo[]>;
  /** Pulls from the image's registry (as the kubelet does, with the pod's config when given); the image id. */
  pullImage(image: string, sandboxConfig?: PodSandboxConfig): Promise<string>;
  removeImage(image: string): Promise<void>;
  close(): void;
}

/** gRPC status codes runtime-bench produces or acts on (a server's other codes arrive as sent). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A CRI call that the runtime answered with an error (or that timed out). */
export class CriCallError extends Error {
  readonly call: string;
  readonly grpcCode: number | null;

  constructor(call: string, message: string, grpcCode: number | null = null) {
    super(`${call}: ${message}`);
    this.name = 'CriCallError';
    this.call = call;
    this.grpcCode = grpcCode;
  }
}

/**
 * The container config as the kubelet sends it: `userSpecifiedImage` names the image the user asked
 * for (CRI-O verifies signatures against it and refuses a CreateContainer without it), and the
 * container's namespace options mirror the pod's unless set (CRI-O refuses a container asking for
 * the pod's PID namespace in a pod that has none).
 */
export function asKubeletSends(config: ContainerConfig, sandbox: PodSandboxConfig): ContainerConfig {
  const podNamespaces = sandbox.linux?.securityContext?.namespaceOptions;
  const own = config.linux?.securityContext;
  return {
    ...config,
    image: { userSpecifiedImage: config.image.image, ...config.image },
    ...(podNamespaces
      ? {
          linux: {
            ...config.linux,
            securityContext: { ...own, namespaceOptions: { ...podNamespaces, ...own?.namespaceOptions } },
          },
        }
      : {}),
  };
}
