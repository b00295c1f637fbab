// Pure generation of a private CRI-O's files: crio.conf, containers-storage's storage.conf and the
// signature policy. Every path CRI-O would otherwise take from /etc, /var/lib or /run is set to one
// under the stack's state directory, so that two stacks (or a system CRI-O) never share anything.
import type { ChildEnv } from '../util/child-env.ts';
import type { HandlerSpec } from './driver.ts';

export interface CrioLayout {
  root: string;
  runRoot: string;
  socket: string;
  logDir: string;
  /** Where CRI-O's own state files go (version, clean shutdown, exits, attach sockets). */
  crioDir: string;
  /** pinns bind-mounts each pod's network, IPC and UTS namespaces here. */
  namespacesDir: string;
  /** Per-handler OCI runtime state roots live below this directory. */
  runtimeRootDir: string;
  hooksDir: string;
  cdiDir: string;
  policyPath: string;
  cniConfDir: string;
  cniBinDir: string;
  cniNetwork: string;
}

export interface CrioConfigInput {
  layout: CrioLayout;
  conmon: string;
  pinns: string;
  pauseImage: string;
  defaultHandler: string;
  handlers: HandlerSpec[];
}

const q = (s: string): string => JSON.stringify(s);

/** The OCI runtime state root of one handler: private, so a stack only ever sees its own containers. */
export function crioRuntimeRoot(layout: Pick<CrioLayout, 'runtimeRootDir'>, handler: string): string {
  return `${layout.runtimeRootDir}/${handler}`;
}

export function renderCrioConfig(c: CrioConfigInput): string {
  const l = c.layout;
  const lines = [
    '# Written by runtime-bench `stack up --cri cri-o`: a private CRI-O, separate from any system one.',
    '[crio]',
    `root = ${q(l.root)}`,
    `runroot = ${q(l.runRoot)}`,
    'storage_driver = "overlay"',
    `log_dir = ${q(l.logDir)}`,
    `version_file = ${q(`${l.crioDir}/version`)}`,
    'version_file_persist = ""',
    `clean_shutdown_file = ${q(`${l.crioDir}/clean.shutdown`)}`,
    '',
    '[crio.api]',
    `listen = ${q(l.socket)}`,
    'stream_address = "127.0.0.1"',
    'stream_port = "0"',
    '',
    '[crio.runtime]',
    // cgroupfs: no systemd to talk to; the pod cgroups are plain directories that `down` removes.
    'cgroup_manager = "cgroupfs"',
    `conmon = ${q(c.conmon)}`,
    'conmon_cgroup = "pod"',
    `namespaces_dir = ${q(l.namespacesDir)}`,
    `pinns_path = ${q(c.pinns)}`,
    `container_exits_dir = ${q(`${l.crioDir}/exits`)}`,
    `container_attach_socket_dir = ${q(`${l.crioDir}/attach`)}`,
    `hooks_dir = [${q(l.hooksDir)}]`,
    `cdi_spec_dirs = [${q(l.cdiDir)}]`,
    `decryption_keys_path = ${q(`${l.crioDir}/keys`)}`,
    `irqbalance_config_file = ${q(`${l.crioDir}/irqbalance`)}`,
    'irqbalance_config_restore_file = "disable"',
    // pids_limit -1 makes crun write pids.max "-1" and fail; 0 leaves the limit unset.
    'pids_limit = 0',
    // No infra (pause) process where the pod does not need one: pinns holds the namespaces.
    'drop_infra_ctr = true',
    'apparmor_profile = ""',
    'enable_criu_support = false',
    `default_runtime = ${q(c.defaultHandler)}`,
    '',
  ];
  for (const h of c.handlers) {
    lines.push(
      `[crio.runtime.runtimes.${q(h.name)}]`,
      `runtime_path = ${q(h.binary)}`,
      'runtime_type = "oci"',
      `runtime_root = ${q(crioRuntimeRoot(l, h.name))}`,
      `monitor_path = ${q(c.conmon)}`,
      'monitor_cgroup = "pod"',
      '',
    );
  }
  lines.push(
    '[crio.image]',
    `pause_image = ${q(c.pauseImage)}`,
    // Our pause image's entrypoint is catatonit -P; an empty command keeps it.
    'pause_command = ""',
    `signature_policy = ${q(l.policyPath)}`,
    `signature_policy_dir = ${q(`${l.crioDir}/policies`)}`,
    '',
    '[crio.network]',
    `network_dir = ${q(l.cniConfDir)}`,
    `plugin_dirs = [${q(l.cniBinDir)}]`,
    `cni_default_network = ${q(l.cniNetwork)}`,
    '',
    '[crio.metrics]',
    'enable_metrics = false',
    '',
    '[crio.tracing]',
    'enable_tracing = false',
    '',
    // NRI would take /var/run/nri/nri.sock, shared by every CRI-O on the host.
    '[crio.nri]',
    'enable_nri = false',
    '',
  );
  return lines.join('\n');
}

/** containers-storage's config for skopeo (and anything else that opens the stack's image store). */
export function renderStorageConf(root: string, runRoot: string): string {
  return ['[storage]', 'driver = "overlay"', `graphroot = ${q(root)}`, `runroot = ${q(runRoot)}`, ''].join(
    '\n',
  );
}

/** Images are only ever loaded offline from our own layout: accept them without signatures. */
export function renderSignaturePolicy(): string {
  return `${JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }, null, 2)}\n`;
}

/**
 * The environment CRI-O runs with: without these it would create /etc/crio/auth and read the host's
 * registries and storage configuration.
 */
export function crioEnvironment(
  base: ChildEnv,
  files: { authDir: string; registriesConf: string; storageConf: string },
): ChildEnv {
  return {
    ...base,
    CONTAINER_NAMESPACED_AUTH_DIR: files.authDir,
    CONTAINERS_REGISTRIES_CONF: files.registriesConf,
    CONTAINERS_STORAGE_CONF: files.storageConf,
  };
}
