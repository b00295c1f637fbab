// A local single-node Kubernetes on a runtime-bench stack, for the cluster mode's tests and for
// users who want a throw-away cluster: `up` starts etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager and a kubelet on the stack's CRI socket (plan.ts says how and why);
// `down` undoes everything, also after a crash of any of them: processes, the kubelet's pods on
// the stack, mounts, cgroups, host paths the kubelet created, and the sysctls it changed.
// What `down` needs is written to <state dir>/cluster.json (state.ts) before each step that needs
// undoing. This module only sequences: the host (host.ts) reads, writes, spawns and stops; what to
// start is decided in plan.ts, what to create and undo in lifecycle.ts.
import { join } from 'node:path';
import { RbError, errorMessage } from '../errors.ts';
import { StopWaiting, WaitTimeoutError, waitFor } from '../util/wait.ts';
import { realClusterHost, type ClusterHost } from './host.ts';
import { clusterStateDir, statePath, type ClusterState } from './state.ts';
import {
  CPUSET_FILES,
  STOP_ORDER,
  addressToAdd,
  inheritsParentCpuset,
  isKubeletPod,
  nodeIsReady,
  ownLogLinks,
  ownsProcess,
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

/**
 * Waits for a component of the cluster (util/wait.ts): a probe that throws StopWaiting (a
 * component exited) or a timeout ends `cluster up` with the logs to read.
 */
async function awaitComponent<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null>,
  logs: string[],
  host: ClusterHost,
): Promise<T> {
  try {
    return await waitFor(probe, { what, timeoutMs, intervalMs: 250, sleep: host.sleep });
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
export async function clusterUp(
  opts: ClusterUpOptions,
  host: ClusterHost = realClusterHost,
): Promise<ClusterState> {
  const log = opts.log ?? (() => undefined);
  const binDir = opts.binDir ?? defaultBinDir();
  for (const b of ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'kubelet'])
    if (!host.exists(join(binDir, b)))
      throw new RbError(
        'CLUSTER_BINARIES',
        `${join(binDir, b)} is missing`,
        'build them with `bash scripts/build-kubernetes.sh` (or set RB_KUBERNETES_BIN / --bin-dir)',
      );
  const stack = await host.readStack(opts.stack);
  if (!stack || !(await host.stackAnswers(stack)))
    throw new RbError(
      'CLUSTER_STACK',
      `the local stack "${opts.stack}" is not up`,
      `run \`runtime-bench stack up --stack ${opts.stack}\` first`,
    );
  const dir = clusterStateDir(opts.name, opts.root);
  if (await host.readState(dir))
    throw new RbError(
      'CLUSTER_EXISTS',
      `cluster "${opts.name}" is already up (${statePath(dir)})`,
      `run \`runtime-bench cluster down --cluster ${opts.name}\` first`,
    );
  await host.ensureDir(join(dir, 'logs'));
  const ports = {
    etcdClient: await host.freePort(),
    etcdPeer: await host.freePort(),
    apiserver: await host.freePort(),
    scheduler: await host.freePort(),
    controllerManager: await host.freePort(),
    kubelet: await host.freePort(),
    kubeletHealthz: await host.freePort(),
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
  await host.writeState(state);
  try {
    await startAll(
      state,
      plan,
      stack.network.bridge,
      stack.network.subnet,
      log,
      opts.readyTimeoutSeconds ?? 120,
      host,
    );
  } catch (error) {
    // The logs outlive the state dir that `down` removes: they say why.
    const kept = `${dir}.failed-logs`;
    await host.removeTree(kept);
    await host.copyTree(join(dir, 'logs'), kept).catch(() => undefined);
    log(`cluster up failed, taking it down (logs kept in ${kept}): ${errorMessage(error)}`);
    await clusterDown({ name: opts.name, root: opts.root, log }, host);
    throw error;
  }
  return state;
}

/** The node's address on the stack's bridge, made now if no pod has made it yet. */
async function addNodeAddress(
  state: ClusterState,
  bridge: string,
  subnet: string,
  host: ClusterHost,
): Promise<void> {
  if (!host.linkExists(bridge)) {
    await host.addBridge(bridge);
    state.createdBridge = bridge;
    await host.writeState(state);
  }
  const address = addressToAdd(await host.ipv4Addresses(bridge), state.nodeIp, subnet);
  if (address) await host.addAddress(bridge, address);
  await host.setLinkUp(bridge);
}

/** The kubelet's cgroup root in every hierarchy (each v1 controller, or the unified one). */
async function makeCgroupRoots(cgroupRoot: string, host: ClusterHost): Promise<void> {
  for (const mount of await host.cgroupMounts()) {
    const dir = join(mount, cgroupRoot);
    await host.ensureDir(dir);
    // A v1 cpuset cgroup takes no task until it has CPUs and memory nodes: the parent's.
    for (const f of CPUSET_FILES)
      if (inheritsParentCpuset(await host.readFileIfExists(join(dir, f))))
        await host.writeFile(join(dir, f), await host.readFile(join(mount, f)));
  }
}

async function startAll(
  state: ClusterState,
  plan: ClusterPlan,
  bridge: string,
  subnet: string,
  log: (line: string) => void,
  readyTimeoutSeconds: number,
  host: ClusterHost,
): Promise<void> {
  await host.makePki(plan.pkiDir);
  await host.writeFile(plan.kubeconfig, plan.kubeconfigText, 0o600);
  await host.writeFile(plan.kubeletConfigPath, plan.kubeletConfig);
  await addNodeAddress(state, bridge, subnet, host);

  // Recorded before the kubelet can touch them.
  for (const key of KUBELET_SYSCTLS) state.sysctls[key] = await host.readSysctl(key);
  state.createdPaths.push(...pathsTheKubeletWillCreate((p) => host.exists(p)));
  await makeCgroupRoots(state.cgroupRoot, host);
  await host.writeState(state);

  const logs = plan.components.map((c) => c.log);
  const api = host.kubeApi(plan.kubeconfig);
  for (const c of plan.components) {
    state.pids[c.name] = await host.spawnComponent(c, plan.kubeconfig);
    await host.writeState(state);
    log(`started ${c.name} (pid ${state.pids[c.name]})`);
    if (c.name === 'kube-apiserver')
      await awaitComponent(
        'kube-apiserver',
        60_000,
        async () => {
          if (!host.processAlive(state.pids['kube-apiserver']!))
            throw new StopWaiting('kube-apiserver exited');
          await api.listNamespaces();
          return true;
        },
        logs,
        host,
      );
  }
  await awaitComponent(
    `node ${state.nodeName}`,
    readyTimeoutSeconds * 1000,
    async () => {
      for (const [name, pid] of Object.entries(state.pids))
        if (!host.processAlive(pid)) throw new StopWaiting(`${name} exited`);
      return nodeIsReady(await api.nodeConditions(state.nodeName)) ? true : null;
    },
    logs,
    host,
  );
  // Pods can only be admitted once the controller-manager made the namespace's service account.
  await awaitComponent(
    'service account default/default',
    60_000,
    async () => {
      await api.readServiceAccount('default', 'default');
      return true;
    },
    logs,
    host,
  );
  log(`node ${state.nodeName} Ready; kubeconfig ${plan.kubeconfig}`);
}

export interface ClusterDownOptions {
  name: string;
  root?: string;
  log?: (line: string) => void;
}

/** Kills the process only if it is ours: its command line names our state dir. */
async function stopOwn(pid: number, stateDir: string, host: ClusterHost): Promise<void> {
  if (!ownsProcess(await host.processCmdline(pid), stateDir)) return;
  await host.terminate(pid, 10_000);
}

/** Stops and removes the kubelet's pods on the stack (never the stack's own): problems are pushed. */
async function removeKubeletPods(
  criSocket: string,
  problems: string[],
  log: (line: string) => void,
  host: ClusterHost,
): Promise<void> {
  try {
    const cri = host.openCri(criSocket);
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
}

/** Removes the kubelet's cgroups, deepest first; pods' processes that outlived their sandbox pin them. */
async function removeCgroups(cgroupRoot: string, problems: string[], host: ClusterHost): Promise<void> {
  const trees: string[] = [];
  for (const mount of await host.cgroupMounts())
    trees.push(...(await host.cgroupDirsBelow(join(mount, cgroupRoot))));
  for (const cg of trees) {
    try {
      // They are ours: killed.
      const procs = await host.cgroupProcs(cg);
      for (const pid of procs) host.kill(pid);
      if (procs.length) await host.sleep(200);
    } catch {
      /* gone */
    }
    try {
      await host.removeCgroup(cg);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') problems.push(`cgroup ${cg}: ${code}`);
    }
  }
}

/** Puts back the sysctls the kubelet changed; one it cannot read is reported, not written blindly. */
async function restoreSysctls(
  recorded: Readonly<Record<string, string>>,
  problems: string[],
  host: ClusterHost,
): Promise<void> {
  const current: Record<string, string> = {};
  for (const [key, value] of Object.entries(recorded)) {
    try {
      current[key] = await host.readSysctl(key);
    } catch (error) {
      problems.push(`sysctl ${key}=${value}: ${errorMessage(error)}`);
    }
  }
  for (const [key, value] of sysctlsToRestore(recorded, current)) {
    try {
      await host.writeSysctl(key, value);
    } catch (error) {
      problems.push(`sysctl ${key}=${value}: ${errorMessage(error)}`);
    }
  }
}

/** Takes the cluster down; safe to repeat. Returns what could not be cleaned (empty when all is gone). */
export async function clusterDown(
  opts: ClusterDownOptions,
  host: ClusterHost = realClusterHost,
): Promise<string[]> {
  const log = opts.log ?? (() => undefined);
  const dir = clusterStateDir(opts.name, opts.root);
  const state = await host.readState(dir);
  if (!state) return [];
  const problems: string[] = [];
  // The kubelet first (STOP_ORDER), so that it restarts nothing while its pods are removed.
  const [kubelet, ...others] = STOP_ORDER;
  if (state.pids[kubelet]) await stopOwn(state.pids[kubelet], dir, host);
  await removeKubeletPods(state.criSocket, problems, log, host);
  for (const name of others) if (state.pids[name]) await stopOwn(state.pids[name], dir, host);
  problems.push(...(await host.unmountBelow(dir)));
  await removeCgroups(state.cgroupRoot, problems, host);
  await restoreSysctls(state.sysctls, problems, host);
  // Symlinks the kubelet made for our pods in a /var/log/containers that was there before.
  for (const p of ownLogLinks(await host.symlinksIn('/var/log/containers'), dir, state.createdPaths))
    await host.removeFile(p).catch(() => undefined); // raced
  for (const p of removalOrder(state.createdPaths))
    await host.removeTree(p).catch((e: unknown) => problems.push(`${p}: ${errorMessage(e)}`));
  // The bridge (even one `up` made) carries the stack's pods and is the stack's: `stack down` deletes it.
  if (problems.length === 0) await host.removeTree(dir);
  else for (const p of problems) log(`cluster down: ${p}`);
  return problems;
}
