// A local single-node Kubernetes on a runtime-bench stack, for the cluster mode's tests and for
// users who want a throw-away cluster: `up` starts etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager and a kubelet on the stack's CRI socket (plan.ts says how and why);
// `down` undoes everything, also after a crash of any of them: processes, the kubelet's pods on
// the stack, mounts, cgroups, host paths the kubelet created, and the sysctls it changed.
// What `down` needs is written to <state dir>/cluster.json (state.ts) before each step that needs
// undoing; what to create and undo is decided in lifecycle.ts.
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, open, readFile, readdir, readlink, rm, rmdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createCriClient } from '../cri/client.ts';
import { RbError, errorMessage } from '../errors.ts';
import { unmountBelow } from '../stack/cleanup.ts';
import { cgroupMounts } from '../stack/cgroups.ts';
import { stackAnswers } from '../stack/manager.ts';
import { readStackState, stackStateDir } from '../stack/state.ts';
import { childEnv } from '../util/child-env.ts';
import { exec, processAlive, sleep, spawnDaemon } from '../util/exec.ts';
import { StopWaiting, WaitTimeoutError, waitFor } from '../util/wait.ts';
import { terminate } from '../stack/cleanup.ts';
import { makePki } from './pki.ts';
import {
  clusterStateDir,
  readClusterState,
  statePath,
  writeClusterState,
  type ClusterState,
} from './state.ts';
import {
  STOP_ORDER,
  addressToAdd,
  isKubeletPod,
  ownLogLinks,
  pathsTheKubeletWillCreate,
  removalOrder,
  sysctlsToRestore,
} from './lifecycle.ts';
import { KUBELET_SYSCTLS, NODE_NAME, gatewayOf, planCluster, type ClusterPlan } from './plan.ts';

export const DEFAULT_KUBERNETES_VERSION = '1.34.4';

/** Where scripts/build-kubernetes.sh caches the binaries of a version. */
export function defaultBinDir(version = DEFAULT_KUBERNETES_VERSION): string {
  return process.env.RB_KUBERNETES_BIN ?? `/opt/runtime-bench/kubernetes/${version}/bin`;
}

/** A free TCP port on 127.0.0.1 (the kernel's choice, released at once). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function readSysctl(key: string): Promise<string> {
  return (await readFile(`/proc/sys/${key.replaceAll('.', '/')}`, 'utf8')).trim();
}

async function writeSysctl(key: string, value: string): Promise<void> {
  await writeFile(`/proc/sys/${key.replaceAll('.', '/')}`, value);
}

export interface ClusterUpOptions {
  name: string;
  /** The runtime-bench stack (containerd or CRI-O) whose CRI the kubelet uses (must be up). */
  stack: string;
  binDir?: string;
  root?: string;
  log?: (line: string) => void;
  /** Seconds to wait for the node to become Ready. */
  readyTimeoutSeconds?: number;
}

export function kubeClient(kubeconfig: string): { kc: KubeConfig; core: CoreV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

/**
 * Waits for a component of the cluster (util/wait.ts): a probe that throws StopWaiting (a
 * component exited) or a timeout ends `cluster up` with the logs to read.
 */
async function awaitComponent<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null>,
  logs: string[],
): Promise<T> {
  try {
    return await waitFor(probe, { what, timeoutMs, intervalMs: 250 });
  } catch (error) {
    if (error instanceof StopWaiting)
      throw new RbError('CLUSTER_START', `${what}: ${error.message}`, `see the logs: ${logs.join(', ')}`);
    if (error instanceof WaitTimeoutError)
      throw new RbError(
        'CLUSTER_START',
        `${what} not ready after ${Math.round(timeoutMs / 1000)} s${error.last ? `: ${error.last}` : ''}`,
        `see the logs: ${logs.join(', ')}`,
      );
    throw error;
  }
}

/** Starts the cluster; on any failure everything started so far is taken down again. */
export async function clusterUp(opts: ClusterUpOptions): Promise<ClusterState> {
  const log = opts.log ?? (() => undefined);
  const binDir = opts.binDir ?? defaultBinDir();
  for (const b of ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'kubelet'])
    if (!existsSync(join(binDir, b)))
      throw new RbError(
        'CLUSTER_BINARIES',
        `${join(binDir, b)} is missing`,
        'build them with `bash scripts/build-kubernetes.sh` (or set RB_KUBERNETES_BIN / --bin-dir)',
      );
  const stack = await readStackState(stackStateDir(opts.stack));
  if (!stack || !(await stackAnswers(stack)))
    throw new RbError(
      'CLUSTER_STACK',
      `the local stack "${opts.stack}" is not up`,
      `run \`runtime-bench stack up --stack ${opts.stack}\` first`,
    );
  const dir = clusterStateDir(opts.name, opts.root);
  if (await readClusterState(dir))
    throw new RbError(
      'CLUSTER_EXISTS',
      `cluster "${opts.name}" is already up (${statePath(dir)})`,
      `run \`runtime-bench cluster down --cluster ${opts.name}\` first`,
    );
  await mkdir(join(dir, 'logs'), { recursive: true });
  const ports = {
    etcdClient: await freePort(),
    etcdPeer: await freePort(),
    apiserver: await freePort(),
    scheduler: await freePort(),
    controllerManager: await freePort(),
    kubelet: await freePort(),
    kubeletHealthz: await freePort(),
  };
  const nodeIp = gatewayOf(stack.network.subnet);
  const plan = planCluster({
    name: opts.name,
    stateDir: dir,
    binDir,
    criSocket: stack.socket,
    nodeIp,
    ports,
  });
  const state: ClusterState = {
    name: opts.name,
    stack: opts.stack,
    stateDir: dir,
    binDir,
    kubeconfig: plan.kubeconfig,
    criSocket: stack.socket,
    nodeName: NODE_NAME,
    nodeIp,
    cgroupRoot: plan.cgroupRoot,
    sysctls: {},
    createdPaths: [],
    createdBridge: null,
    pids: {},
  };
  await writeClusterState(state);
  try {
    await startAll(
      state,
      plan,
      stack.network.bridge,
      stack.network.subnet,
      log,
      opts.readyTimeoutSeconds ?? 120,
    );
  } catch (error) {
    // The logs outlive the state dir that `down` removes: they say why.
    const kept = `${dir}.failed-logs`;
    await rm(kept, { recursive: true, force: true });
    await cp(join(dir, 'logs'), kept, { recursive: true }).catch(() => undefined);
    log(`cluster up failed, taking it down (logs kept in ${kept}): ${errorMessage(error)}`);
    await clusterDown({ name: opts.name, root: opts.root, log });
    throw error;
  }
  return state;
}

async function startAll(
  state: ClusterState,
  plan: ClusterPlan,
  bridge: string,
  subnet: string,
  log: (line: string) => void,
  readyTimeoutSeconds: number,
): Promise<void> {
  await makePki(plan.pkiDir);
  await writeFile(plan.kubeconfig, plan.kubeconfigText, { mode: 0o600 });
  await writeFile(plan.kubeletConfigPath, plan.kubeletConfig);
  // The node's address lives on the stack's bridge, made now if no pod has made it yet.
  const link = await exec('ip', ['link', 'show', bridge], { allowFailure: true });
  if (link.exitCode !== 0) {
    await exec('ip', ['link', 'add', bridge, 'type', 'bridge']);
    state.createdBridge = bridge;
    await writeClusterState(state);
  }
  const addrs = await exec('ip', ['-4', '-o', 'addr', 'show', 'dev', bridge]);
  const address = addressToAdd(addrs.stdout, state.nodeIp, subnet);
  if (address) await exec('ip', ['addr', 'add', address, 'dev', bridge]);
  await exec('ip', ['link', 'set', bridge, 'up']);

  // Recorded before the kubelet can touch them.
  for (const key of KUBELET_SYSCTLS) state.sysctls[key] = await readSysctl(key);
  state.createdPaths.push(...pathsTheKubeletWillCreate(existsSync));
  // The kubelet's cgroup root must exist in every hierarchy (each v1 controller, or the unified one).
  for (const mount of await cgroupMountPoints()) {
    const dir = join(mount, state.cgroupRoot);
    await mkdir(dir, { recursive: true });
    // A v1 cpuset cgroup takes no task until it has CPUs and memory nodes: the parent's.
    for (const f of ['cpuset.cpus', 'cpuset.mems'])
      if (existsSync(join(dir, f)) && !(await readFile(join(dir, f), 'utf8')).trim())
        await writeFile(join(dir, f), await readFile(join(mount, f), 'utf8'));
  }
  await writeClusterState(state);

  const logs = plan.components.map((c) => c.log);
  const { core } = kubeClient(plan.kubeconfig);
  for (const c of plan.components) {
    const fd = await open(c.log, 'a');
    try {
      state.pids[c.name] = spawnDaemon(
        c.binary,
        c.args,
        fd.fd,
        childEnv(process.env, { KUBECONFIG: plan.kubeconfig }),
      );
    } finally {
      await fd.close();
    }
    await writeClusterState(state);
    log(`started ${c.name} (pid ${state.pids[c.name]})`);
    if (c.name === 'kube-apiserver')
      await awaitComponent(
        'kube-apiserver',
        60_000,
        async () => {
          if (!processAlive(state.pids['kube-apiserver']!)) throw new StopWaiting('kube-apiserver exited');
          await core.listNamespace();
          return true;
        },
        logs,
      );
  }
  await awaitComponent(
    `node ${state.nodeName}`,
    readyTimeoutSeconds * 1000,
    async () => {
      for (const [name, pid] of Object.entries(state.pids))
        if (!processAlive(pid)) throw new StopWaiting(`${name} exited`);
      const node = await core.readNode({ name: state.nodeName });
      return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : null;
    },
    logs,
  );
  // Pods can only be admitted once the controller-manager made the namespace's service account.
  await awaitComponent(
    'service account default/default',
    60_000,
    async () => {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
      return true;
    },
    logs,
  );
  log(`node ${state.nodeName} Ready; kubeconfig ${plan.kubeconfig}`);
}

export interface ClusterDownOptions {
  name: string;
  root?: string;
  log?: (line: string) => void;
}

/** Kills the process only if it is ours: its command line names our state dir. */
async function stopOwn(pid: number, stateDir: string): Promise<void> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.includes(stateDir)) return;
  await terminate(pid, 10_000);
}

async function cgroupMountPoints(): Promise<string[]> {
  return cgroupMounts(await readFile('/proc/self/mountinfo', 'utf8'));
}

/** Every cgroup directory below `root`, deepest first. */
async function cgroupTree(root: string): Promise<string[]> {
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

/** The symlinks in `dir` and their targets (none when it does not exist). */
async function logLinks(dir: string): Promise<{ path: string; target: string }[]> {
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

/** Takes the cluster down; safe to repeat. Returns what could not be cleaned (empty when all is gone). */
export async function clusterDown(opts: ClusterDownOptions): Promise<string[]> {
  const log = opts.log ?? (() => undefined);
  const dir = clusterStateDir(opts.name, opts.root);
  const state = await readClusterState(dir);
  if (!state) return [];
  const problems: string[] = [];
  // The kubelet first (STOP_ORDER), so that it restarts nothing while its pods are removed.
  const [kubelet, ...others] = STOP_ORDER;
  if (state.pids[kubelet]) await stopOwn(state.pids[kubelet], dir);
  try {
    const cri = createCriClient('grpc', state.criSocket, { timeoutSeconds: 30 });
    try {
      for (const pod of await cri.listPodSandbox())
        if (isKubeletPod(pod.labels)) {
          await cri.stopPodSandbox(pod.id).catch(() => undefined);
          await cri
            .removePodSandbox(pod.id)
            .catch((e: unknown) => problems.push(`pod ${pod.id}: ${errorMessage(e)}`));
        }
    } finally {
      cri.close();
    }
  } catch (error) {
    // The stack is gone already: its own `down` removed the pods.
    log(`kubelet pods: stack not reachable (${errorMessage(error)})`);
  }
  for (const name of others) if (state.pids[name]) await stopOwn(state.pids[name], dir);
  problems.push(...(await unmountBelow(dir)));
  // Pods' processes that outlived their sandbox would pin the cgroups: they are ours, kill them.
  const trees: string[] = [];
  for (const mount of await cgroupMountPoints())
    trees.push(...(await cgroupTree(join(mount, state.cgroupRoot))));
  for (const cg of trees) {
    try {
      const procs = (await readFile(join(cg, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean);
      for (const pid of procs) process.kill(Number(pid), 'SIGKILL');
      if (procs.length) await sleep(200);
    } catch {
      /* gone */
    }
    try {
      await rmdir(cg);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') problems.push(`cgroup ${cg}: ${code}`);
    }
  }
  const current: Record<string, string> = {};
  for (const [key, value] of Object.entries(state.sysctls)) {
    try {
      current[key] = await readSysctl(key);
    } catch (error) {
      problems.push(`sysctl ${key}=${value}: ${errorMessage(error)}`);
    }
  }
  for (const [key, value] of sysctlsToRestore(state.sysctls, current)) {
    try {
      await writeSysctl(key, value);
    } catch (error) {
      problems.push(`sysctl ${key}=${value}: ${errorMessage(error)}`);
    }
  }
  // Symlinks the kubelet made for our pods in a /var/log/containers that was there before.
  for (const p of ownLogLinks(await logLinks('/var/log/containers'), dir, state.createdPaths))
    await rm(p).catch(() => undefined); // raced
  for (const p of removalOrder(state.createdPaths))
    await rm(p, { recursive: true, force: true }).catch((e: unknown) =>
      problems.push(`${p}: ${errorMessage(e)}`),
    );
  // The bridge (even one `up` made) carries the stack's pods and is the stack's: `stack down` deletes it.
  if (problems.length === 0) await rm(dir, { recursive: true, force: true });
  else for (const p of problems) log(`cluster down: ${p}`);
  return problems;
}
