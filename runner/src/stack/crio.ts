// The CRI-O driver: a private CRI-O (own storage, runroot, config dir, socket, conmon, pinns and
// namespace directory) with one OCI-runtime handler per runtime found, images loaded offline with
// skopeo into its containers-storage.
import { readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HostFix } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { childEnv } from '../util/child-env.ts';
import { exec } from '../util/exec.ts';
import { removeCgroupsNamed } from './cgroups.ts';
import {
  crioEnvironment,
  crioRuntimeRoot,
  renderCrioConfig,
  renderSignaturePolicy,
  renderStorageConf,
  type CrioLayout,
} from './crio-config.ts';
import { findDaemonBinary } from './discover.ts';
import { which } from '../util/path-search.ts';
import type { DaemonPlan, StackDriver, StackFacts } from './driver.ts';
import type { HostFixPlan } from './host-fixes.ts';
import { registryPaths } from './registry-config.ts';
import type { StackState } from './state.ts';
import { crioIncompatibility } from './versions.ts';

/** Where everything of a private CRI-O lives, below the stack's state directory. */
export function crioLayout(stateDir: string, cniBinDir: string, cniNetwork: string): CrioLayout {
  return {
    root: join(stateDir, 'storage'),
    runRoot: join(stateDir, 'run'),
    socket: join(stateDir, 'crio.sock'),
    logDir: join(stateDir, 'pods'),
    crioDir: join(stateDir, 'crio'),
    namespacesDir: join(stateDir, 'ns'),
    runtimeRootDir: join(stateDir, 'oci'),
    hooksDir: join(stateDir, 'hooks'),
    cdiDir: join(stateDir, 'cdi'),
    policyPath: join(stateDir, 'policy.json'),
    cniConfDir: join(stateDir, 'cni'),
    cniBinDir,
    cniNetwork,
  };
}

function planCrio(f: StackFacts): DaemonPlan {
  const layout = crioLayout(f.stateDir, f.cniBinDir, f.network.name);
  const configPath = join(f.stateDir, 'crio.conf');
  const configDir = join(f.stateDir, 'crio.conf.d');
  const storageConf = join(f.stateDir, 'storage.conf');
  // Written by the stack's registry (registry.ts) before CRI-O starts: only that registry, insecure.
  // CRI-O reads it as its HOME's per-user registries.conf (it ignores CONTAINERS_REGISTRIES_CONF).
  const registry = registryPaths(f.stateDir);
  const registriesConf = registry.registriesConf;
  const authDir = join(f.stateDir, 'auth');
  const tool = (name: string): string => {
    const path = f.daemon.tools[name];
    if (!path) throw new Error(`CRI-O driver: no ${name} in the facts`);
    return path;
  };
  return {
    dirs: [
      layout.root,
      layout.runRoot,
      layout.logDir,
      layout.crioDir,
      layout.namespacesDir,
      layout.runtimeRootDir,
      layout.hooksDir,
      layout.cdiDir,
      configDir,
      authDir,
    ],
    // conmon and the runtime run where CRI-O puts them: no shim cgroup (see overhead.runtime).
    cgroups: [],
    files: [
      {
        path: configPath,
        content: renderCrioConfig({
          layout,
          conmon: tool('conmon'),
          pinns: tool('pinns'),
          pauseImage: f.images.pause,
          defaultHandler: f.handlers[0]!.name,
          handlers: f.handlers.map((h) => ({ name: h.name, kind: h.kind, binary: h.binary })),
        }),
      },
      { path: storageConf, content: renderStorageConf(layout.root, layout.runRoot) },
      { path: layout.policyPath, content: renderSignaturePolicy() },
    ],
    command: {
      path: f.daemon.path,
      // --config-dir: without it CRI-O also reads /etc/crio/crio.conf.d.
      args: ['--config', configPath, '--config-dir', configDir],
      env: { ...crioEnvironment(f.env, { authDir, registriesConf, storageConf }), HOME: registry.home },
      cwd: f.stateDir,
    },
    socket: layout.socket,
    configPath,
    logPath: join(f.stateDir, 'crio.log'),
    state: {
      cri: 'cri-o',
      crio: {
        pinns: tool('pinns'),
        conmon: tool('conmon'),
        skopeo: tool('skopeo'),
        storageRoot: layout.root,
        runRoot: layout.runRoot,
        storageConf,
        runtimeRootDir: layout.runtimeRootDir,
        namespacesDir: layout.namespacesDir,
      },
    },
  };
}

async function requireTool(name: string, dirs: string[], hint: string): Promise<string> {
  const path = await which(name, dirs);
  if (!path) throw new RbError('STACK_NO_CRIO_TOOL', `CRI-O needs ${name}, which is not on PATH`, hint);
  return path;
}

/** The containers a stack's OCI runtimes still know (each has a directory in the handler's root). */
async function containersIn(root: string): Promise<string[]> {
  try {
    return (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

export const crioDriver: StackDriver = {
  cri: 'cri-o',
  binaryFlag: '--crio',
  runscNeedsShim: false,
  async findDaemon(explicit) {
    const d = await findDaemonBinary(
      'crio',
      '--crio',
      explicit,
      'install it (`runtime-bench install --source path cri-o@…` or the release source)',
    );
    const beside = [dirname(d.path)];
    return {
      ...d,
      tools: {
        pinns: await requireTool('pinns', beside, `put pinns beside ${d.path} (the CRI-O bundle has both)`),
        conmon: await requireTool('conmon', [], 'apt-get install conmon'),
        skopeo: await requireTool('skopeo', [], 'apt-get install skopeo (loads the images offline)'),
      },
    };
  },
  incompatibility: crioIncompatibility,
  ownHostFixes(plan: HostFixPlan): HostFix[] {
    if (!plan.restrictOomScoreAdj) return [];
    return [
      {
        id: 'pod-pid-namespace-container',
        condition:
          'no CAP_SYS_RESOURCE: with a pod-wide PID namespace CRI-O starts an infra container with oom_score_adj -998 and the OCI runtime fails ("failed to update /proc/self/oom_score_adj"); CRI-O has no option to restrict it',
        action:
          'every pod and container is created with namespace_options.pid = CONTAINER (as the kubelet sets it), so CRI-O needs no infra container',
        applied: true,
      },
    ];
  },
  planDaemon: planCrio,
  async loadImages(state: StackState, layoutDir, names, log) {
    if (state.cri !== 'cri-o') throw new Error(`not a CRI-O stack: ${state.name}`);
    const env = childEnv(process.env, { CONTAINERS_STORAGE_CONF: state.crio.storageConf });
    for (const name of names) {
      log(`loading ${name} into ${state.crio.storageRoot}`);
      await exec(
        state.crio.skopeo,
        [
          '--policy',
          join(state.stateDir, 'policy.json'),
          'copy',
          '--quiet',
          `oci:${layoutDir}:${name}`,
          `containers-storage:[overlay@${state.crio.storageRoot}+${state.crio.runRoot}]${name}`,
        ],
        { env },
      );
    }
  },
  async cleanup(state: StackState) {
    if (state.cri !== 'cri-o') return [];
    const problems: string[] = [];
    // Containers the OCI runtimes still hold (CRI-O was killed, or stopping a pod failed): the
    // runtime kills their processes and removes their cgroups. Each root is private to this stack.
    const ids: string[] = [];
    for (const h of state.handlers) {
      const root = crioRuntimeRoot({ runtimeRootDir: state.crio.runtimeRootDir }, h.name);
      for (const id of await containersIn(root)) {
        ids.push(id);
        const r = await exec(h.binary, ['--root', root, 'delete', '--force', id], {
          allowFailure: true,
          timeoutMs: 30_000,
        });
        if (r.exitCode !== 0 && (await containersIn(root)).includes(id))
          problems.push(`${h.name} delete --force ${id}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
      }
    }
    // CRI-O names its cgroups after the container and pod ids it created (and never removes the pods').
    const containersJson = await readFile(
      join(state.crio.storageRoot, 'overlay-containers', 'containers.json'),
      'utf8',
    ).catch(() => null);
    problems.push(...(await removeCgroupsNamed(crioCgroupNames(ids, containersJson))));
    // libcni caches each attachment's result under /var/lib/cni/results as <network>-<id>-<ifname>.
    try {
      for (const entry of await readdir('/var/lib/cni/results'))
        if (entry.startsWith(`${state.network.name}-`))
          await rm(join('/var/lib/cni/results', entry), { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(errorMessage(error));
    }
    return problems;
  },
};

/**
 * CRI-O's cgroup names for the containers the runtimes still hold and for every container and pod
 * containers-storage knows (its containers.json text, null when there is none yet). Pure.
 */
export function crioCgroupNames(runtimeIds: readonly string[], containersJson: string | null): string[] {
  const ids = new Set(runtimeIds);
  let containers: unknown = null;
  try {
    containers = containersJson === null ? null : JSON.parse(containersJson);
  } catch {
    /* cut short by the kill: the runtimes' ids still count */
  }
  for (const c of Array.isArray(containers) ? (containers as { id?: unknown; metadata?: unknown }[]) : []) {
    if (typeof c?.id === 'string') ids.add(c.id);
    const pod = /"pod-id":"([0-9a-f]{64})"/.exec(typeof c?.metadata === 'string' ? c.metadata : '');
    if (pod) ids.add(pod[1]!);
  }
  return [...ids].flatMap((id) => [`crio-${id}`, `crio-conmon-${id}`, `pod_${id}`]);
}
