// A ClusterHost over a small in-memory world (files, sysctls, cgroups, links, processes, pods)
// that records every effect and every read that decides one, in order, as `name arg arg` with
// JSON arguments. Existence checks, liveness checks and port picks are answered, not recorded.
import type { ClusterHost } from '../../../src/cluster/host.ts';
import type { ClusterState } from '../../../src/cluster/state.ts';
import type { StackState } from '../../../src/stack/state.ts';

export const STACK_BRIDGE = 'rb-s-br';
export const STACK_SOCKET = '/var/lib/runtime-bench/stacks/s/containerd.sock';

/** A running containerd stack "s" as the cluster sees it (only what the cluster reads). */
export function stackState(): StackState {
  return {
    cri: 'containerd',
    name: 's',
    stateDir: '/var/lib/runtime-bench/stacks/s',
    socket: STACK_SOCKET,
    pid: 4242,
    network: { name: 'runtime-bench-s', bridge: STACK_BRIDGE, subnet: '10.233.7.0/24' },
  } as StackState;
}

export interface World {
  stack?: StackState | null;
  stackAnswers?: boolean;
  cluster?: ClusterState | null;
  /** Paths that exist (the binaries, host paths the kubelet may create). */
  paths?: Set<string>;
  /** Addresses on the stack's bridge; undefined: the bridge does not exist yet. */
  bridgeAddresses?: string[];
  sysctls?: Map<string, string>;
  /** Cgroup hierarchies' mount points. */
  cgroupMounts?: string[];
  /** Cgroup directories (besides those the host was asked to make) and their pids. */
  cgroups?: Map<string, number[]>;
  /** Cgroups rmdir refuses with this errno code. */
  busyCgroups?: Map<string, string>;
  /** File contents (cgroup files). */
  files?: Map<string, string>;
  /** Components whose process is gone as soon as it started. */
  exits?: Set<string>;
  /** The node's Ready condition. */
  nodeReady?: boolean;
  pods?: { id: string; labels: Record<string, string> }[];
  logLinks?: { path: string; target: string }[];
}

export function recordingHost(world: World) {
  const calls: string[] = [];
  const rec = (name: string, ...args: unknown[]): void =>
    void calls.push([name, ...args.map((a) => JSON.stringify(a))].join(' '));
  let stored: ClusterState | null = world.cluster ?? null;
  const paths = world.paths ?? new Set<string>();
  const sysctls = world.sysctls ?? new Map<string, string>();
  const cgroups = world.cgroups ?? new Map<string, number[]>();
  const files = world.files ?? new Map<string, string>();
  /** Sysctls whose read fails (a test adds them when it wants). */
  const unreadableSysctls = new Set<string>();
  let addresses = world.bridgeAddresses;
  const cmdlines = new Map<number, string>();
  const alive = new Set<number>();
  let nextPid = 1001;
  const host: ClusterHost = {
    exists: (p) => paths.has(p),
    ensureDir: async (d) => {
      rec('ensureDir', d);
      if (world.cgroupMounts?.some((m) => d.startsWith(`${m}/`)) && !cgroups.has(d)) cgroups.set(d, []);
    },
    readFile: async (p) => {
      rec('readFile', p);
      const text = files.get(p);
      if (text === undefined) throw new Error(`ENOENT: ${p}`);
      return text;
    },
    readFileIfExists: async (p) => (rec('readFileIfExists', p), files.get(p) ?? null),
    writeFile: async (p, content, mode) => {
      if (mode === undefined) rec('writeFile', p);
      else rec('writeFile', p, mode.toString(8));
      files.set(p, content);
    },
    copyTree: async (from, to) => rec('copyTree', from, to),
    removeTree: async (p) => rec('removeTree', p),
    removeFile: async (p) => rec('removeFile', p),
    readStack: async (name) => (
      rec('readStack', name),
      world.stack === undefined ? stackState() : world.stack
    ),
    stackAnswers: async () => (rec('stackAnswers'), world.stackAnswers ?? true),
    readState: async (dir) => (rec('readState', dir), stored),
    writeState: async (s) => {
      // What `down` would need from this record: started components, the bridge, sysctls, paths.
      rec('writeState', Object.keys(s.pids), s.createdBridge, Object.keys(s.sysctls).length, s.createdPaths);
      stored = structuredClone(s);
    },
    freePort: (() => {
      let port = 40000;
      return async () => port++;
    })(),
    makePki: async (dir) => rec('makePki', dir),
    linkExists: (name) => (rec('linkExists', name), name === STACK_BRIDGE && addresses !== undefined),
    addBridge: async (name) => {
      rec('addBridge', name);
      addresses = [];
    },
    ipv4Addresses: async (name) => (rec('ipv4Addresses', name), [...(addresses ?? [])]),
    addAddress: async (name, cidr) => {
      rec('addAddress', name, cidr);
      addresses = [...(addresses ?? []), cidr];
    },
    setLinkUp: async (name) => rec('setLinkUp', name),
    readSysctl: async (key) => {
      rec('readSysctl', key);
      if (unreadableSysctls.has(key)) throw new Error(`EACCES: ${key}`);
      return sysctls.get(key) ?? '0';
    },
    writeSysctl: async (key, value) => {
      rec('writeSysctl', key, value);
      sysctls.set(key, value);
    },
    cgroupMounts: async () => (rec('cgroupMounts'), [...(world.cgroupMounts ?? [])]),
    cgroupDirsBelow: async (root) => {
      rec('cgroupDirsBelow', root);
      // Deepest first, as the real host's walk gives them.
      return [...cgroups.keys()]
        .filter((d) => d === root || d.startsWith(`${root}/`))
        .sort((a, b) => b.split('/').length - a.split('/').length);
    },
    cgroupProcs: async (cg) => {
      rec('cgroupProcs', cg);
      const procs = cgroups.get(cg);
      if (!procs) throw new Error(`ENOENT: ${cg}`);
      return [...procs];
    },
    removeCgroup: async (cg) => {
      rec('removeCgroup', cg);
      // As the kernel: a cgroup with a child left (or held by something else) cannot go.
      const hasChild = [...cgroups.keys()].some((d) => d.startsWith(`${cg}/`));
      const code = world.busyCgroups?.get(cg) ?? (hasChild ? 'EBUSY' : undefined);
      if (code) throw Object.assign(new Error(`${code}: ${cg}`), { code });
      if (!cgroups.delete(cg)) throw Object.assign(new Error(`ENOENT: ${cg}`), { code: 'ENOENT' });
    },
    spawnComponent: async (c, kubeconfig) => {
      rec('spawnComponent', c.name, kubeconfig);
      const pid = nextPid++;
      cmdlines.set(pid, [c.binary, ...c.args, ''].join('\0'));
      if (!world.exits?.has(c.name)) alive.add(pid);
      return pid;
    },
    processAlive: (pid) => alive.has(pid),
    processCmdline: async (pid) => (rec('processCmdline', pid), alive.has(pid) ? cmdlines.get(pid)! : ''),
    terminate: async (pid, graceMs) => {
      rec('terminate', pid, graceMs);
      alive.delete(pid);
      return true;
    },
    kill: (pid) => {
      rec('kill', pid);
      for (const procs of cgroups.values()) if (procs.includes(pid)) procs.splice(procs.indexOf(pid), 1);
    },
    sleep: async (ms) => rec('sleep', ms),
    kubeApi: (kubeconfig) => {
      rec('kubeApi', kubeconfig);
      return {
        listNamespaces: async () => rec('listNamespaces'),
        nodeConditions: async (name) => (
          rec('nodeConditions', name),
          [{ type: 'Ready', status: (world.nodeReady ?? true) ? 'True' : 'False' }]
        ),
        readServiceAccount: async (namespace, name) => rec('readServiceAccount', namespace, name),
      };
    },
    openCri: (socket) => {
      rec('openCri', socket);
      return {
        listPodSandbox: async () => (rec('listPodSandbox'), world.pods ?? []),
        stopPodSandbox: async (id) => rec('stopPodSandbox', id),
        removePodSandbox: async (id) => rec('removePodSandbox', id),
        close: () => rec('closeCri'),
      };
    },
    unmountBelow: async (dir) => (rec('unmountBelow', dir), []),
    symlinksIn: async (dir) => (rec('symlinksIn', dir), world.logLinks ?? []),
  };
  return {
    host,
    calls,
    stored: () => stored,
    sysctls,
    unreadableSysctls,
    files,
    cgroups,
    addresses: () => addresses,
    pids: () => [...alive],
  };
}
