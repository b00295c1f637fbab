// What `stack up` will do, decided from plain values: which handlers are registered or skipped
// and why, which host fixes apply, the network, every file to write and the daemon to start.
// No I/O here; manager.ts gathers the facts and carries the plan out.
import { join } from 'node:path';
import type { HostFix } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { renderCniConflist } from './containerd-config.ts';
import type { DaemonFacts, DaemonPlan, FileToWrite, StackDriver, StackFacts } from './driver.ts';
import { describeCgroupFix, type HostFixPlan } from './host-fixes.ts';
import type { DiscoveredHandlers } from './discover.ts';
import { bridgeName, pickSubnet } from './network.ts';
import type { UsageHierarchy } from './shim-cgroups.ts';
import type { ChildEnv } from '../util/child-env.ts';
import { StackStateSchema, type StackState } from './state.ts';

export interface StackPlanInput {
  name: string;
  stateDir: string;
  daemon: DaemonFacts;
  discovered: DiscoveredHandlers;
  hostFixPlan: HostFixPlan;
  fixHost: boolean;
  /** `ip -4 route` output: subnets already in use. */
  routes: string;
  subnet?: string | undefined;
  /** The first directory holding the CNI bridge plugin, or null. */
  cniBinDir: string | null;
  images: { pause: string; bench: string };
  shimDirs: string[];
  /** The hierarchy counting CPU usage, where shim cgroups go; null when the host has none. */
  usageHierarchy: UsageHierarchy | null;
  /** The daemon's base environment: the allow-listed part of ours (util/child-env.ts). */
  env: ChildEnv;
}

export interface StackPlan {
  /** v2-only cgroup controllers to bind to v1 before the daemon starts (only with --fix-host). */
  bindControllers: string[];
  dirs: string[];
  files: FileToWrite[];
  /** Cgroups to create in `hierarchy` before the daemon starts; stack down removes the stack's. */
  cgroups: { hierarchy: UsageHierarchy; paths: string[] } | null;
  command: DaemonPlan['command'];
  logPath: string;
  /** The state to record; the executor fills in the daemon's pid, start time and image components. */
  state: StackState;
}

/**
 * Handlers to register: crun is skipped while the hybrid-cgroup fix is missing (it refuses to
 * start any container), with the reason; everything else the driver accepted stays, in order.
 */
export function selectHandlers(
  discovered: DiscoveredHandlers,
  hostFixPlan: HostFixPlan,
  fixHost: boolean,
): DiscoveredHandlers {
  const crunBlocked = hostFixPlan.hybridV2Controllers.length > 0 && !fixHost;
  const blocked = discovered.handlers.filter((h) => crunBlocked && h.kind === 'crun');
  return {
    handlers: discovered.handlers.filter((h) => !blocked.includes(h)),
    skipped: [
      ...discovered.skipped,
      ...blocked.map((h) => ({
        name: h.name,
        binary: h.binary,
        reason: `cgroup hybrid mode with v2-only controllers (${hostFixPlan.hybridV2Controllers.join(', ')}): crun refuses; use --fix-host`,
      })),
    ],
  };
}

export function planStack(driver: StackDriver, input: StackPlanInput): StackPlan {
  const { handlers, skipped } = selectHandlers(input.discovered, input.hostFixPlan, input.fixHost);
  if (handlers.length === 0) {
    throw new RbError(
      'STACK_NO_RUNTIME',
      `no usable OCI runtime found for ${driver.cri} (runc, crun, youki or runsc)${skipped.length ? `; skipped: ${skipped.map((s) => `${s.name}: ${s.reason}`).join('; ')}` : ''}`,
      'apt-get install runc crun, or add stack.extraHandlers to the config',
    );
  }
  if (!input.cniBinDir) {
    throw new RbError(
      'STACK_NO_CNI',
      'no CNI plugins found in /usr/lib/cni or /opt/cni/bin',
      'apt-get install containernetworking-plugins',
    );
  }
  const hostFixes: HostFix[] = [
    ...driver.ownHostFixes(input.hostFixPlan),
    ...describeCgroupFix(input.hostFixPlan, input.fixHost),
  ];
  const network = {
    name: `runtime-bench-${input.name}`,
    bridge: bridgeName(input.name),
    subnet: input.subnet ?? pickSubnet(input.name, input.routes),
  };
  const facts: StackFacts = {
    name: input.name,
    stateDir: input.stateDir,
    daemon: input.daemon,
    handlers,
    skippedHandlers: skipped,
    hostFixes,
    network,
    cniBinDir: input.cniBinDir,
    images: input.images,
    shimDirs: input.shimDirs,
    shimCgroups: input.usageHierarchy !== null,
    env: input.env,
  };
  const daemon = driver.planDaemon(facts);
  const cniDir = join(input.stateDir, 'cni');
  const common = {
    name: input.name,
    stateDir: input.stateDir,
    socket: daemon.socket,
    daemon: {
      path: input.daemon.path,
      version: input.daemon.version,
      configPath: daemon.configPath,
      logPath: daemon.logPath,
    },
    handlers: handlers.map((h) => ({
      name: h.name,
      kind: h.kind,
      binary: h.binary,
      version: h.version,
      versionOutput: h.versionOutput,
    })),
    // Field by field, as the handlers above: the state schema is strict, and these records are
    // assembled from outside input (a binary's --version) by several hands.
    skippedHandlers: skipped.map((s) => ({ name: s.name, binary: s.binary, reason: s.reason })),
    hostFixes,
    network,
    images: { pause: input.images.pause, bench: input.images.bench },
  };
  return {
    bindControllers: input.fixHost ? input.hostFixPlan.hybridV2Controllers : [],
    dirs: [cniDir, ...daemon.dirs],
    files: [
      {
        path: join(cniDir, '10-runtime-bench.conflist'),
        content: renderCniConflist(
          network.name,
          network.bridge,
          network.subnet,
          join(input.stateDir, 'cni-ipam'),
        ),
      },
      ...daemon.files,
    ],
    cgroups:
      input.usageHierarchy && daemon.cgroups.length > 0
        ? { hierarchy: input.usageHierarchy, paths: daemon.cgroups }
        : null,
    command: daemon.command,
    logPath: daemon.logPath,
    // Validated here, so a driver's state part that does not fit the schema fails before any write.
    state: StackStateSchema.parse({
      ...common,
      ...daemon.state,
      pid: null,
      startedAt: '',
      imageComponents: [],
    }),
  };
}
