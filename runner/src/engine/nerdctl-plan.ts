// Pure planning of a nerdctl engine: a containerd of its own (root, state, sockets and the opt
// directory under the run's private root, no CRI plugin, no NRI socket), and the nerdctl global
// flags that point every command at it (its own namespace, data root, CNI directories and an
// empty nerdctl.toml, so /etc/nerdctl and the host's containerd are never read or touched).
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { EnginePlan, RuntimeBinary, Ulimits } from './engine-plan.ts';

/** Where Debian's containernetworking-plugins puts the CNI plugins nerdctl's networks use. */
export const CNI_PLUGIN_DIR = '/usr/lib/cni';

/**
 * containerd-shim-runc-v2 keeps runc's (and crun's) state under /run/containerd/runc/<namespace>
 * whatever containerd's state directory is, and nerdctl gives it no other root: the namespace is
 * unique per run and target so that directory is ours to remove.
 */
export const SHIM_STATE_DIR = '/run/containerd/runc';

/**
 * The sockets a containerd-shim-runc-v2 listens on, from its command line (`-namespace ns -id id
 * -address <containerd.sock>`): /run/containerd/s/<sha256 of address/ns/id> and, containerd 2,
 * the same of …/debug — there whatever containerd's state directory is (containerd's
 * shim.SocketAddress). A shim killed rather than shut down leaves them. [] for other processes.
 */
export function shimSockets(cmdline: readonly string[]): string[] {
  if (!(cmdline[0] ?? '').endsWith('containerd-shim-runc-v2')) return [];
  const flag = (name: string): string | undefined => {
    const i = cmdline.indexOf(name);
    return i < 0 ? undefined : cmdline[i + 1];
  };
  const [ns, id, address] = [flag('-namespace'), flag('-id'), flag('-address')];
  if (!ns || !id || !address) return [];
  const hash = (path: string): string =>
    join(SHIM_SOCKET_DIR, createHash('sha256').update(path).digest('hex'));
  const base = join(address, ns, id);
  return [hash(base), hash(join(base, 'debug'))];
}

/** Where every containerd shim's socket is (containerd's default state directory's s/). */
export const SHIM_SOCKET_DIR = '/run/containerd/s';

/** The containerd namespace of one nerdctl target: `rb-<run key>-<target index>`. */
export function nerdctlNamespace(runKey: string, targetDir: string): string {
  return `rb-${runKey}-${basename(targetDir)}`;
}

/**
 * containerd's config (version 2, read by 1.6 to 2.x): everything under `root`; the CRI plugins
 * are off (nerdctl talks containerd's own API) and so is NRI, whose socket would be
 * /var/run/nri/nri.sock on the host.
 */
export function containerdConfig(root: string): string {
  const q = (v: string): string => JSON.stringify(v);
  return [
    'version = 2',
    `root = ${q(join(root, 'containerd'))}`,
    `state = ${q(join(root, 'state'))}`,
    'disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images", "io.containerd.nri.v1.nri"]',
    '[grpc]',
    `  address = ${q(join(root, 'containerd.sock'))}`,
    '[ttrpc]',
    `  address = ${q(join(root, 'containerd.sock.ttrpc'))}`,
    '[debug]',
    '  address = ""',
    '[metrics]',
    '  address = ""',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${q(join(root, 'opt'))}`,
    '',
  ].join('\n');
}

export function planNerdctl(opts: {
  cli: string;
  daemon: string;
  root: string;
  runKey: string;
  cgroupName: string;
  runtimes: RuntimeBinary[];
  ulimits: Ulimits;
  path: string;
}): EnginePlan {
  const { root } = opts;
  const socket = join(root, 'containerd.sock');
  const namespace = nerdctlNamespace(opts.runKey, root);
  const config = join(root, 'containerd.toml');
  return {
    engine: 'nerdctl',
    cli: opts.cli,
    root,
    cgroupName: opts.cgroupName,
    runtimes: opts.runtimes,
    ulimits: opts.ulimits,
    globalArgs: [
      '--address',
      `unix://${socket}`,
      '--namespace',
      namespace,
      '--data-root',
      join(root, 'nerdctl'),
      '--cgroup-manager',
      'cgroupfs',
      '--snapshotter',
      'overlayfs',
      '--cni-path',
      CNI_PLUGIN_DIR,
      '--cni-netconfpath',
      join(root, 'cni'),
    ],
    // containerd finds containerd-shim-runc-v2 on PATH: the one beside this containerd first.
    env: {
      PATH: `${dirname(opts.daemon)}:${opts.path}`,
      HOME: root,
      NERDCTL_TOML: join(root, 'nerdctl.toml'),
    },
    dirs: [
      join(root, 'containerd'),
      join(root, 'state'),
      join(root, 'nerdctl'),
      join(root, 'cni'),
      join(root, 'opt'),
    ],
    files: [
      { path: config, content: containerdConfig(root) },
      { path: join(root, 'nerdctl.toml'), content: '' },
    ],
    daemon: {
      binary: opts.daemon,
      args: ['--config', config],
      // containerd writes no pidfile: the engine writes this one, for the reaper of a killed run.
      pidfile: join(root, 'containerd.pid'),
      log: join(root, 'containerd.log'),
      writesPidfile: false,
    },
    leftovers: [join(SHIM_STATE_DIR, namespace)],
    networkConfigDir: join(root, 'cni'),
    infoArgs: ['info', '--format', '{{json .}}'],
    versionArgs: ['version', '--format', '{{json .}}'],
  };
}
