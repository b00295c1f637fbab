// Pure argument building and output parsing for the crictl transport, kept apart from spawning
// crictl so that it is unit-tested on plain strings (captured from a real crictl).
import type {
  ContainerStateName,
  ContainerStats,
  ContainerStatus,
  ImageInfo,
  PodSandboxStatus,
  PodSandboxSummary,
  SandboxStateName,
  VersionInfo,
} from './types.ts';

/** Keys whose children are user data (label names), never field names to convert. */
const MAP_FIELDS = new Set(['labels', 'annotations', 'label_selector']);

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * crictl reads pod and container configs with a YAML/JSON decoder keyed by the CRI structs' JSON
 * tags, which are snake_case: convert our camelCase objects, leaving label maps untouched.
 */
export function toCrictlJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCrictlJson);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => {
          const key = snake(k);
          return [key, MAP_FIELDS.has(key) ? v : toCrictlJson(v)];
        }),
    );
  }
  return value;
}

/** The per-instance crictl config: both endpoints set, so /etc/crictl.yaml never leaks in. */
export function crictlConfigYaml(socket: string, timeoutSeconds: number): string {
  return [
    `runtime-endpoint: unix://${socket}`,
    `image-endpoint: unix://${socket}`,
    `timeout: ${Math.ceil(timeoutSeconds)}`,
    'debug: false',
    'pull-image-on-create: false',
    '',
  ].join('\n');
}

/** `crictl version` prints "Key:  value" lines (it has no JSON output). */
export function parseCrictlVersion(text: string): VersionInfo {
  const get = (key: string): string => {
    const m = new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(text);
    if (!m) throw new Error(`crictl version output has no "${key}" line: ${text.trim().slice(0, 200)}`);
    return m[1]!.trim();
  };
  return {
    version: get('Version'),
    runtimeName: get('RuntimeName'),
    runtimeVersion: get('RuntimeVersion'),
    runtimeApiVersion: get('RuntimeApiVersion'),
  };
}

type Json = Record<string, unknown>;

/**
 * crictl prints CRI timestamps as RFC 3339 text ("2026-11-21T08:47:39.316197484Z") where the CRI
 * carries nanoseconds since the epoch; bring both to the decimal-nanoseconds string the gRPC client gives.
 */
export function toEpochNanos(value: unknown): string {
  if (value === undefined || value === null || value === '') return '0';
  const text = String(value);
  if (/^\d+$/.test(text)) return text;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!m) throw new Error(`not a timestamp: ${text}`);
  const seconds = BigInt(Date.parse(`${m[1]}${m[3]}`)) / 1000n;
  if (seconds <= 0n) return '0';
  return String(seconds * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0')));
}

function parseJson(text: string, what: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new Error(`crictl ${what} printed no JSON: ${text.trim().slice(0, 200)}`);
  }
}

/** The single id crictl prints for runp and create. */
export function parseCrictlId(text: string, what: string): string {
  const id = text.trim().split('\n').pop()?.trim() ?? '';
  if (!/^[0-9a-f]{12,}$/.test(id))
    throw new Error(`crictl ${what} printed no id: ${text.trim().slice(0, 200)}`);
  return id;
}

export function parseInspectp(text: string): PodSandboxStatus {
  const s = (parseJson(text, 'inspectp').status ?? {}) as Json;
  return {
    id: String(s.id ?? ''),
    state: (s.state ?? 'SANDBOX_NOTREADY') as SandboxStateName,
    createdAt: toEpochNanos(s.createdAt),
    ip: String((s.network as Json | undefined)?.ip ?? ''),
    runtimeHandler: String(s.runtimeHandler ?? ''),
    labels: (s.labels as Record<string, string>) ?? {},
  };
}

export function parsePods(text: string): PodSandboxSummary[] {
  const items = (parseJson(text, 'pods').items ?? []) as Json[];
  return items.map((p) => ({
    id: String(p.id),
    name: String((p.metadata as Json | undefined)?.name ?? ''),
    state: p.state as SandboxStateName,
    labels: (p.labels as Record<string, string>) ?? {},
    runtimeHandler: String(p.runtimeHandler ?? ''),
  }));
}

export function parseInspect(text: string): ContainerStatus {
  const s = (parseJson(text, 'inspect').status ?? {}) as Json;
  return {
    id: String(s.id ?? ''),
    state: (s.state ?? 'CONTAINER_UNKNOWN') as ContainerStateName,
    createdAt: toEpochNanos(s.createdAt),
    startedAt: toEpochNanos(s.startedAt),
    finishedAt: toEpochNanos(s.finishedAt),
    exitCode: Number(s.exitCode ?? 0),
    reason: String(s.reason ?? ''),
    message: String(s.message ?? ''),
    logPath: String(s.logPath ?? ''),
  };
}

export function parseStats(text: string): ContainerStats {
  const stats = (parseJson(text, 'stats').stats ?? []) as Json[];
  const first = stats[0] ?? {};
  const value = (v: unknown): string | null => ((v as Json | undefined)?.value as string | undefined) ?? null;
  return {
    cpuUsageCoreNanoSeconds: value((first.cpu as Json | undefined)?.usageCoreNanoSeconds),
    memoryWorkingSetBytes: value((first.memory as Json | undefined)?.workingSetBytes),
  };
}

export function parseInspecti(text: string): ImageInfo | null {
  const s = parseJson(text, 'inspecti').status as Json | undefined;
  return s ? imageOf(s) : null;
}

function imageOf(s: Json): ImageInfo {
  return { id: String(s.id), repoTags: (s.repoTags as string[] | null) ?? [], size: String(s.size ?? '0') };
}

/** `crictl images -o json`: {"images": [...]}. */
export function parseImages(text: string): ImageInfo[] {
  return ((parseJson(text, 'images').images as Json[] | null) ?? []).map(imageOf);
}

/** `crictl pull` prints "Image is up to date for <image id>". */
export function parsePulled(text: string): string {
  const m = /Image is up to date for (\S+)/.exec(text);
  if (!m) throw new Error(`crictl pull: unexpected output ${JSON.stringify(text.trim().slice(0, 200))}`);
  return m[1]!;
}

/** `crictl update` flags for the resources we change (quota/period in µs, memory in bytes). */
export function updateArgs(
  containerId: string,
  r: {
    cpuPeriod?: number;
    cpuQuota?: number;
    cpuShares?: number;
    memoryLimitInBytes?: number;
    cpusetCpus?: string;
  },
): string[] {
  const args = ['update'];
  if (r.cpuPeriod !== undefined) args.push('--cpu-period', String(r.cpuPeriod));
  if (r.cpuQuota !== undefined) args.push('--cpu-quota', String(r.cpuQuota));
  if (r.cpuShares !== undefined) args.push('--cpu-share', String(r.cpuShares));
  if (r.memoryLimitInBytes !== undefined) args.push('--memory', String(r.memoryLimitInBytes));
  if (r.cpusetCpus !== undefined) args.push('--cpuset-cpus', r.cpusetCpus);
  args.push(containerId);
  return args;
}

/** crictl exits 1 and prints "… exited with N …" when the exec'd command fails. */
export function execExitCode(stderr: string): number | null {
  const m = /exited with (?:exit code )?(\d+)/.exec(stderr);
  return m ? Number(m[1]) : null;
}
