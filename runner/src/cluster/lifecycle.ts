// What `cluster up` changes on the host and what `cluster down` undoes, decided from plain values
// (what exists, what was recorded, what the kubelet left): manager.ts asks the host (host.ts) for
// the facts and carries the decisions out. No I/O here.
import { KUBELET_FIXED_PATHS } from './plan.ts';

/** The components in the order `down` stops them: the kubelet first, so it restarts nothing. */
export const STOP_ORDER = [
  'kubelet',
  'kube-controller-manager',
  'kube-scheduler',
  'kube-apiserver',
  'etcd',
] as const;

/** Host paths the kubelet will create that do not exist yet: `down` removes exactly these. */
export function pathsTheKubeletWillCreate(exists: (path: string) => boolean): string[] {
  return [...KUBELET_FIXED_PATHS, '/var/lib/kubelet/device-plugins'].filter((p) => !exists(p));
}

/** The node's address on the stack's bridge (`10.233.7.1/24`), unless the bridge has it already. */
export function addressToAdd(addresses: readonly string[], nodeIp: string, subnet: string): string | null {
  return addresses.some((a) => a.split('/')[0] === nodeIp) ? null : `${nodeIp}/${subnet.split('/')[1]}`;
}

/** A v1 cpuset cgroup's files that must be set before it takes a task. */
export const CPUSET_FILES = ['cpuset.cpus', 'cpuset.mems'] as const;

/**
 * Does a cpuset file of the kubelet's cgroup root take its parent's value? Only when it exists
 * (`own` is null otherwise: not a v1 cpuset hierarchy) and is empty, so the cgroup takes no task.
 */
export function inheritsParentCpuset(own: string | null): boolean {
  return own !== null && !own.trim();
}

/** Is the process with this command line (NUL-separated, as in /proc) ours: does it name our state dir? */
export function ownsProcess(cmdline: string, stateDir: string): boolean {
  return cmdline.includes(stateDir);
}

/** Does a node's status say Ready? */
export function nodeIsReady(conditions: readonly { type: string; status: string }[]): boolean {
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A pod the kubelet made (it labels each with its pod uid); the stack's own pods are left alone. */
export function isKubeletPod(labels: Readonly<Record<string, string>>): boolean {
  return Boolean(labels['io.kubernetes.pod.uid']);
}

/**
 * Sysctls whose value differs from the one recorded before the kubelet started, with that value.
 * A key missing from `current` could not be read: it is reported, not written blindly.
 */
export function sysctlsToRestore(
  recorded: Readonly<Record<string, string>>,
  current: Readonly<Record<string, string>>,
): [key: string, value: string][] {
  return Object.entries(recorded).filter(([key, value]) => key in current && current[key] !== value);
}

/**
 * Symlinks the kubelet made for our pods in a /var/log/containers that was there before `up`
 * (pointing into the cluster's state dir); none when `up` created the directory (it goes whole).
 */
export function ownLogLinks(
  links: readonly { path: string; target: string }[],
  stateDir: string,
  createdPaths: readonly string[],
): string[] {
  if (createdPaths.includes('/var/log/containers')) return [];
  return links.filter((l) => l.target.startsWith(stateDir)).map((l) => l.path);
}

/** Created paths in the order to remove them: deepest first. */
export function removalOrder(createdPaths: readonly string[]): string[] {
  return [...createdPaths].sort((a, b) => b.length - a.length);
}
