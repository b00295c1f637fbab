// The one interface a local stack's CRI runtime implements. `stack up` decides everything from
// plain facts (plan.ts, pure), the executor in manager.ts writes and spawns; what differs between
// containerd and CRI-O lives behind this interface and nowhere else. Suites, run, results and the
// site only ever see the CRI name and version that the running daemon reports.
import type { HostFix } from '@runtime-bench/schemas';
import type { ChildEnv } from '../util/child-env.ts';
import type { HostFixPlan } from './host-fixes.ts';
import type { CriName, OciKind, StackState } from './state.ts';

/** One CRI runtime handler: a name and the OCI runtime binary behind it. */
export interface HandlerSpec {
  name: string;
  kind: OciKind;
  binary: string;
  /** For runsc under containerd: the runsc.toml the shim reads. */
  runscConfigPath?: string;
  /** For the runc shim under containerd: the cgroup its shims run in (shim-cgroups.ts). */
  shimCgroup?: string;
}

/** The daemon binary a driver found, its version and the helper programs it needs (by role). */
export interface DaemonFacts {
  path: string;
  version: string;
  /** containerd: ctr; CRI-O: pinns, conmon, skopeo. */
  tools: Record<string, string>;
}

/** Everything `stack up` decides from, gathered by reading (never changing) the host. */
export interface StackFacts {
  name: string;
  stateDir: string;
  daemon: DaemonFacts;
  /** The handlers that will be registered, in order (the first is the default). */
  handlers: (HandlerSpec & { version: string; versionOutput: string })[];
  skippedHandlers: { name: string; binary: string; reason: string }[];
  hostFixes: HostFix[];
  network: { name: string; bridge: string; subnet: string };
  cniBinDir: string;
  images: { pause: string; bench: string };
  /** Directories holding containerd-shim-runsc-v1 for the runsc handlers (containerd only). */
  shimDirs: string[];
  /** Can this host give shims a cgroup of their own with a CPU usage counter (shim-cgroups.ts)? */
  shimCgroups: boolean;
  /**
   * The daemon's environment, an allow-list (util/child-env.ts): its shims, conmon, runtimes and
   * containers inherit it. The driver extends PATH and adds its own variables.
   */
  env: ChildEnv;
}

export interface FileToWrite {
  path: string;
  content: string;
}

/** What one driver contributes to a stack's plan: its files, its daemon's command, its state. */
export interface DaemonPlan {
  dirs: string[];
  files: FileToWrite[];
  /** Cgroups to create before the daemon starts (and remove at stack down): the shim cgroups. */
  cgroups: string[];
  command: { path: string; args: string[]; env: ChildEnv; cwd: string };
  socket: string;
  configPath: string;
  logPath: string;
  /** The driver's own part of the state record (`containerd` or `crio`). */
  state: Pick<StackState, 'cri'> & Record<string, unknown>;
}

export interface StackDriver {
  readonly cri: CriName;
  /** The option that names the daemon binary (for messages): --containerd, --crio. */
  readonly binaryFlag: string;
  /** The daemon binary (the one given, or on PATH) with its version and helper programs. */
  findDaemon(explicit?: string): Promise<DaemonFacts>;
  /** Under containerd, runsc needs its own shim; CRI-O runs any OCI runtime through conmon. */
  readonly runscNeedsShim: boolean;
  /**
   * Why an OCI runtime of this kind and version cannot serve under this daemon version, or null
   * (always null for a runtime whose version is unknown: no rule can tell).
   */
  incompatibility(daemonVersion: string, kind: OciKind, ociVersion: string | null): string | null;
  /** The host fixes this driver makes in its own config or in the pods it creates (pure). */
  ownHostFixes(plan: HostFixPlan): HostFix[];
  /** The private daemon's files and command, from the facts alone (pure). */
  planDaemon(facts: StackFacts): DaemonPlan;
  /** Loads the images of an OCI image layout directory into the running stack's image store. */
  loadImages(
    state: StackState,
    layoutDir: string,
    names: string[],
    log: (line: string) => void,
  ): Promise<void>;
  /**
   * Removes what the daemon leaves behind once it and its runtime processes are gone (containers
   * still known to the OCI runtimes, cgroups, CNI cache entries). Returns the problems it met.
   */
  cleanup(state: StackState): Promise<string[]>;
}
