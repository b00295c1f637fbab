// Everything `cluster up` and `cluster down` do to the host, behind one interface (as stack/host.ts
// does for the stack): manager.ts sequences these calls and its decisions (lifecycle.ts, plan.ts)
// are pure, so the sequencing is unit-tested with a recording host and the real one is exercised
// by the integration tests. Each method is thin: one file, link, process or API call.
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, open, readFile, readdir, readlink, rm, rmdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createCriClient } from '../cri/client.ts';
import { cgroupMounts } from '../stack/cgroups.ts';
import { terminate, unmountBelow } from '../stack/cleanup.ts';
import { stackAnswers } from '../stack/manager.ts';
import { readStackState, stackStateDir, type StackState } from '../stack/state.ts';
import { childEnv } from '../util/child-env.ts';
import { processAlive, sleep, spawnDaemon } from '../util/exec.ts';
import { addAddress, addBridge, ipv4Addresses, linkExists, setLinkUp } from '../util/net-link.ts';
import { makePki } from './pki.ts';
import type { ComponentPlan } from './plan.ts';
import { readClusterState, writeClusterState, type ClusterState } from './state.ts';

/** What `cluster up` asks the cluster's apiserver; each call throws while the answer is not there. */
export interface ClusterApi {
  listNamespaces(): Promise<void>;
  /** The node's status conditions; throws while the node is not registered. */
  nodeConditions(name: string): Promise<{ type: string; status: string }[]>;
  readServiceAccount(namespace: string, name: string): Promise<void>;
}

/** What `cluster down` asks of the stack's CRI: the kubelet's pods go with the cluster. */
export interface ClusterCri {
  listPodSandbox(): Promise<{ id: string; labels: Record<string, string> }[]>;
  stopPodSandbox(id: string): Promise<void>;
  removePodSandbox(id: string): Promise<void>;
  close(): void;
}

export interface ClusterHost {
  exists(path: string): boolean;
  ensureDir(dir: string): Promise<void>;
  readFile(path: string): Promise<string>;
  /** A file's text, or null when it does not exist. */
  readFileIfExists(path: string): Promise<string | null>;
  /** Writes `content`; `mode` applies when the file is created. */
  writeFile(path: string, content: string, mode?: number): Promise<void>;
  copyTree(from: string, to: string): Promise<void>;
  /** Removes a file or a whole tree; nothing when it is not there. */
  removeTree(path: string): Promise<void>;
  /** Removes one file (a symlink); throws when it cannot. */
  removeFile(path: string): Promise<void>;
  /** The stack's state by its name (null when never brought up). */
  readStack(name: string): Promise<StackState | null>;
  /** Is the stack's daemon alive and answering CRI? */
  stackAnswers(stack: StackState): Promise<boolean>;
  readState(dir: string): Promise<ClusterState | null>;
  writeState(state: ClusterState): Promise<void>;
  /** A free TCP port on 127.0.0.1 (the kernel's choice, released at once). */
  freePort(): Promise<number>;
  makePki(dir: string): Promise<void>;
  linkExists(name: string): boolean;
  addBridge(name: string): Promise<void>;
  /** The link's IPv4 addresses in CIDR notation. */
  ipv4Addresses(name: string): Promise<string[]>;
  addAddress(name: string, cidr: string): Promise<void>;
  setLinkUp(name: string): Promise<void>;
  readSysctl(key: string): Promise<string>;
  writeSysctl(key: string, value: string): Promise<void>;
  /** Mount points of every cgroup hierarchy (each v1 controller, or the unified one). */
  cgroupMounts(): Promise<string[]>;
  /** Every cgroup directory below `root` and `root` itself, deepest first (none when it does not exist). */
  cgroupDirsBelow(root: string): Promise<string[]>;
  /** The pids in a cgroup; throws when the cgroup is gone. */
  cgroupProcs(cgroup: string): Promise<number[]>;
  /** rmdir; throws the errno error (ENOENT when it is gone already). */
  removeCgroup(cgroup: string): Promise<void>;
  /** Starts a component detached, its output appended to its log: its pid. */
  spawnComponent(component: ComponentPlan, kubeconfig: string): Promise<number>;
  processAlive(pid: number): boolean;
  /** /proc/<pid>/cmdline (NUL-separated), or '' when the process is gone. */
  processCmdline(pid: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`: true when it is gone. */
  terminate(pid: number, graceMs: number): Promise<boolean>;
  /** SIGKILL; throws when there is no such process. */
  kill(pid: number): void;
  sleep(ms: number): Promise<void>;
  /** A client of the cluster's apiserver (reads the kubeconfig now). */
  kubeApi(kubeconfig: string): ClusterApi;
  /** A client of the stack's CRI socket. */
  openCri(socket: string): ClusterCri;
  /** Unmounts everything below `dir`: what could not be unmounted. */
  unmountBelow(dir: string): Promise<string[]>;
  /** The symlinks in `dir` and their targets (none when it does not exist). */
  symlinksIn(dir: string): Promise<{ path: string; target: string }[]>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

const sysctlPath = (key: string): string => `/proc/sys/${key.replaceAll('.', '/')}`;

async function cgroupDirsBelow(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) await walk(join(dir, e.name));
    out.push(dir);
  };
  await walk(root);
  return out;
}

async function symlinksIn(dir: string): Promise<{ path: string; target: string }[]> {
  const links: { path: string; target: string }[] = [];
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, entry);
    try {
      if ((await lstat(path)).isSymbolicLink()) links.push({ path, target: await readlink(path) });
    } catch {
      /* raced */
    }
  }
  return links;
}

export const realClusterHost: ClusterHost = {
  exists: existsSync,
  ensureDir: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  readFile: (path) => readFile(path, 'utf8'),
  readFileIfExists: async (path) => (existsSync(path) ? readFile(path, 'utf8') : null),
  writeFile: (path, content, mode) =>
    mode === undefined ? writeFile(path, content) : writeFile(path, content, { mode }),
  copyTree: (from, to) => cp(from, to, { recursive: true }),
  removeTree: (path) => rm(path, { recursive: true, force: true }),
  removeFile: (path) => rm(path),
  readStack: (name) => readStackState(stackStateDir(name)),
  stackAnswers: (stack) => stackAnswers(stack),
  readState: readClusterState,
  writeState: writeClusterState,
  freePort,
  makePki,
  linkExists,
  addBridge,
  ipv4Addresses,
  addAddress,
  setLinkUp,
  readSysctl: async (key) => (await readFile(sysctlPath(key), 'utf8')).trim(),
  writeSysctl: (key, value) => writeFile(sysctlPath(key), value),
  cgroupMounts: async () => cgroupMounts(await readFile('/proc/self/mountinfo', 'utf8')),
  cgroupDirsBelow,
  cgroupProcs: async (cgroup) =>
    (await readFile(join(cgroup, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean).map(Number),
  removeCgroup: (cgroup) => rmdir(cgroup),
  async spawnComponent(component, kubeconfig) {
    const fd = await open(component.log, 'a');
    try {
      return spawnDaemon(
        component.binary,
        component.args,
        fd.fd,
        childEnv(process.env, { KUBECONFIG: kubeconfig }),
      );
    } finally {
      await fd.close();
    }
  },
  processAlive,
  processCmdline: (pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
  terminate,
  kill: (pid) => process.kill(pid, 'SIGKILL'),
  sleep,
  kubeApi(kubeconfig) {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    return {
      listNamespaces: async () => {
        await core.listNamespace();
      },
      nodeConditions: async (name) => (await core.readNode({ name })).status?.conditions ?? [],
      readServiceAccount: async (namespace, name) => {
        await core.readNamespacedServiceAccount({ name, namespace });
      },
    };
  },
  openCri: (socket) => createCriClient('grpc', socket, { timeoutSeconds: 30 }),
  unmountBelow,
  symlinksIn,
};
