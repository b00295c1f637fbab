// The containerd driver: a private containerd with the CRI plugin, one runc-shim handler per
// runc-like OCI runtime and the runsc shim for gVisor.
import { dirname, delimiter, join } from 'node:path';
import type { HostFix } from '@runtime-bench/schemas';
import { exec } from '../util/exec.ts';
import { renderContainerdConfig, renderRunscConfig } from './containerd-config.ts';
import { findDaemonBinary } from './discover.ts';
import { which } from '../util/path-search.ts';
import type { DaemonPlan, HandlerSpec, StackDriver, StackFacts } from './driver.ts';
import type { HostFixPlan } from './host-fixes.ts';
import { registryPaths } from './registry-config.ts';
import { tarLayout } from './images/layout.ts';
import { shimCgroupPath } from './shim-cgroups.ts';
import type { StackState } from './state.ts';
import { containerdCniBinKey, containerdConfigVersion, incompatibility } from './versions.ts';

function planContainerd(f: StackFacts): DaemonPlan {
  const socket = join(f.stateDir, 'containerd.sock');
  const configPath = join(f.stateDir, 'config.toml');
  const configVersion = containerdConfigVersion(f.daemon.version);
  const files: DaemonPlan['files'] = [];
  const handlers: HandlerSpec[] = f.handlers.map((h) => {
    // The runc shim moves itself into ShimCgroup: its helpers' CPU is then counted in ns there.
    if (h.kind !== 'runsc') {
      const spec: HandlerSpec = { name: h.name, kind: h.kind, binary: h.binary };
      return f.shimCgroups ? { ...spec, shimCgroup: shimCgroupPath(f.name, h.name) } : spec;
    }
    const runscConfigPath = join(f.stateDir, `runsc-${h.name}.toml`);
    files.push({ path: runscConfigPath, content: renderRunscConfig(h.binary, join(f.stateDir, 'runsc')) });
    return { name: h.name, kind: h.kind, binary: h.binary, runscConfigPath };
  });
  files.push({
    path: configPath,
    content: renderContainerdConfig({
      configVersion,
      root: join(f.stateDir, 'root'),
      state: join(f.stateDir, 'state'),
      socket,
      optDir: join(f.stateDir, 'opt'),
      pauseImage: f.images.pause,
      cniBinDir: f.cniBinDir,
      cniBinKey: containerdCniBinKey(f.daemon.version),
      cniConfDir: join(f.stateDir, 'cni'),
      restrictOomScoreAdj: f.hostFixes.some((x) => x.id === 'restrict-oom-score-adj'),
      defaultHandler: f.handlers[0]!.name,
      handlers,
      registryConfigPath: registryPaths(f.stateDir).hostsDir,
    }),
  });
  // containerd finds containerd-shim-* on its PATH: that version's directory goes first.
  const shimDirs = [...new Set([dirname(f.daemon.path), ...f.shimDirs])];
  return {
    dirs: [],
    files,
    cgroups: handlers.flatMap((h) => (h.shimCgroup ? [h.shimCgroup] : [])),
    command: {
      path: f.daemon.path,
      args: ['--config', configPath],
      env: { ...f.env, PATH: [...shimDirs, f.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'].join(delimiter) },
      cwd: f.stateDir,
    },
    socket,
    configPath,
    logPath: join(f.stateDir, 'containerd.log'),
    state: { cri: 'containerd', containerd: { configVersion, ctr: f.daemon.tools.ctr ?? 'ctr' } },
  };
}

export const containerdDriver: StackDriver = {
  cri: 'containerd',
  binaryFlag: '--containerd',
  runscNeedsShim: true,
  async findDaemon(explicit) {
    const d = await findDaemonBinary('containerd', '--containerd', explicit, 'apt-get install containerd');
    return { ...d, tools: { ctr: (await which('ctr', [dirname(d.path)])) ?? 'ctr' } };
  },
  incompatibility: (daemonVersion, kind, ociVersion) => incompatibility(daemonVersion, kind, ociVersion),
  ownHostFixes(plan: HostFixPlan): HostFix[] {
    if (!plan.restrictOomScoreAdj) return [];
    return [
      {
        id: 'restrict-oom-score-adj',
        condition:
          "no CAP_SYS_RESOURCE: the CRI pause container's oom_score_adj -998 would make runc fail (\"can't get final child's PID from pipe\")",
        action: 'set restrict_oom_score_adj = true in the private containerd CRI config',
        applied: true,
      },
    ];
  },
  planDaemon: planContainerd,
  async loadImages(state: StackState, layoutDir, _names, log) {
    if (state.cri !== 'containerd') throw new Error(`not a containerd stack: ${state.name}`);
    const tarPath = join(state.stateDir, 'images.tar');
    await tarLayout(layoutDir, tarPath);
    log(`importing images into ${state.socket}`);
    await exec(state.containerd.ctr, [
      '-a',
      state.socket,
      '-n',
      'k8s.io',
      'images',
      'import',
      '--all-platforms',
      tarPath,
    ]);
  },
  // Shims and runsc sandboxes are stopped by the common teardown (they name the state dir).
  cleanup: () => Promise.resolve([]),
};
