// Pure views of Kubernetes objects for the cluster mode: which nodes a target selects, a node's
// host fingerprint and CRI identity, the kubelet's CRI time from its metrics text, and the
// phases of one pod's start from the watch events observed. No I/O here (see execute.ts).
import type { HostFingerprint } from '@runtime-bench/schemas';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { CAP_SYS_ADMIN, CAP_SYS_RESOURCE, hasCapability, parseCapEff, parseCpuinfo } from '../host/parse.ts';

/** Ready, schedulable nodes (a cordoned or NotReady node is no place to measure starts). */
export function usableNodes(nodes: readonly V1Node[]): V1Node[] {
  return nodes.filter(
    (n) =>
      !n.spec?.unschedulable &&
      (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
  );
}

/** The value of the kubernetes.io/hostname label, which a nodeSelector pins pods with. */
export function hostnameLabel(node: V1Node): string {
  return node.metadata?.labels?.['kubernetes.io/hostname'] ?? node.metadata!.name!;
}

/** "containerd://2.1.4" → { name: "containerd", version: "2.1.4" }. */
export function nodeCri(node: V1Node): { name: string; version: string } {
  const raw = node.status?.nodeInfo?.containerRuntimeVersion ?? '';
  const m = /^([^:]+):\/\/v?(.+)$/.exec(raw);
  return m ? { name: m[1]!, version: m[2]! } : { name: raw || 'unknown', version: 'unknown' };
}

/** Kubernetes quantities of memory ("16393460Ki", "2Gi", "1000000") in bytes. */
export function quantityBytes(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q.trim());
  if (!m) throw new Error(`not a memory quantity: ${q}`);
  const mult: Record<string, number> = {
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(m[1]) * (m[2] ? mult[m[2]]! : 1);
}

/** What a short-lived probe pod on the node printed: /proc/cpuinfo, cgroup.controllers, status. */
export interface NodeProbe {
  cpuinfo: string;
  cgroupControllers: string | null;
  status: string;
}

export const PROBE_SEPARATOR = '---runtime-bench---';

/** The probe pod's shell script; its output is parsed by parseProbe. */
export const PROBE_SCRIPT = `cat /proc/cpuinfo; echo ${PROBE_SEPARATOR}; cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null || echo none; echo ${PROBE_SEPARATOR}; cat /proc/self/status`;

export function parseProbe(log: string): NodeProbe {
  const parts = log.split(`${PROBE_SEPARATOR}\n`);
  if (parts.length !== 3) throw new Error('the node probe pod printed an unexpected log');
  const controllers = parts[1]!.trim();
  return {
    cpuinfo: parts[0]!,
    cgroupControllers: controllers === 'none' ? null : controllers,
    status: parts[2]!,
  };
}

/**
 * A node as a host: kernel, OS, architecture, CPUs and memory from Node status; CPU model,
 * cgroup mode and capabilities from the probe pod (a pod sees the node's /proc/cpuinfo; its
 * capabilities are those pods get there). Without a probe the CPU model is "unknown".
 */
export function nodeHost(node: V1Node, probe: NodeProbe | null): HostFingerprint {
  const info = node.status?.nodeInfo;
  const cpu = probe ? parseCpuinfo(probe.cpuinfo) : { model: 'unknown', hypervisor: false };
  const capEff = probe ? parseCapEff(probe.status) : '0';
  const controllers = probe?.cgroupControllers?.split(/\s+/).filter(Boolean) ?? [];
  return {
    hostname: node.metadata!.name!,
    kernel: info?.kernelVersion || 'unknown',
    os: info?.osImage || 'unknown',
    arch: info?.architecture || 'unknown',
    cpuModel: cpu.model || 'unknown',
    cpus: Math.max(1, Math.floor(Number(node.status?.capacity?.cpu ?? '1'))),
    memoryBytes: quantityBytes(node.status?.capacity?.memory ?? '1'),
    virtualization: cpu.hypervisor ? 'hypervisor' : null,
    cgroup: { mode: probe?.cgroupControllers ? 'v2' : 'v1', v2Controllers: controllers },
    capabilities: {
      effective: capEff,
      sysAdmin: hasCapability(capEff, CAP_SYS_ADMIN),
      sysResource: hasCapability(capEff, CAP_SYS_RESOURCE),
    },
    hostFixes: [],
  };
}

/** The CRI calls of one pod's start, as the kubelet's operation_type label names them. */
export const POD_START_CRI_OPERATIONS = ['run_podsandbox', 'create_container', 'start_container'] as const;

/**
 * Sums (seconds) of kubelet_runtime_operations_duration_seconds per operation_type from the
 * kubelet's Prometheus text. Cumulative: the difference of two scrapes around one pod is the CRI
 * time of that pod, when nothing else starts on the node meanwhile.
 */
export function runtimeOperationSums(metricsText: string): Map<string, number> {
  const sums = new Map<string, number>();
  const re = /^kubelet_runtime_operations_duration_seconds_sum\{([^}]*)\}\s+(\S+)$/gm;
  for (const m of metricsText.matchAll(re)) {
    const op = /operation_type="([^"]*)"/.exec(m[1]!)?.[1];
    if (op) sums.set(op, (sums.get(op) ?? 0) + Number(m[2]));
  }
  return sums;
}

/** Milliseconds of pod-start CRI calls between two scrapes; null when the metric is absent. */
export function criMillisBetween(before: Map<string, number>, after: Map<string, number>): number | null {
  if (!POD_START_CRI_OPERATIONS.some((op) => after.has(op))) return null;
  let s = 0;
  for (const op of POD_START_CRI_OPERATIONS) s += (after.get(op) ?? 0) - (before.get(op) ?? 0);
  return s * 1000;
}

/** Moments (ms on one monotonic clock) at which the watch first showed each phase. */
export interface PodPhaseTimes {
  created: number;
  scheduled?: number;
  started?: number;
  ready?: number;
}

/** Updates `times` from one observed state of the pod; returns true once it is Ready. */
export function observePod(times: PodPhaseTimes, pod: V1Pod, at: number): boolean {
  if (times.scheduled === undefined && pod.spec?.nodeName) times.scheduled = at;
  const running = (pod.status?.containerStatuses ?? []).some((c) => c.state?.running);
  if (times.started === undefined && running) times.started = at;
  const ready = (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  if (times.ready === undefined && ready) times.ready = at;
  // A watch can skip states: a later phase implies the earlier ones happened by then.
  if (times.ready !== undefined) {
    times.started ??= times.ready;
    times.scheduled ??= times.started;
  } else if (times.started !== undefined) times.scheduled ??= times.started;
  return times.ready !== undefined;
}

/** Why a pod will never become Ready (a waiting reason that does not resolve by itself), or null. */
export function podStuck(pod: V1Pod): string | null {
  for (const c of pod.status?.containerStatuses ?? []) {
    const w = c.state?.waiting;
    if (
      w &&
      /ErrImage|ImagePullBackOff|CreateContainerError|CreateContainerConfigError|InvalidImageName/.test(
        w.reason ?? '',
      )
    )
      return `${w.reason}: ${w.message ?? ''}`.trim();
    const t = c.state?.terminated;
    if (t) return `container terminated (${t.reason ?? 'exit'} ${t.exitCode})`;
  }
  if (pod.status?.phase === 'Failed')
    return `pod failed: ${pod.status.reason ?? ''} ${pod.status.message ?? ''}`.trim();
  return null;
}
