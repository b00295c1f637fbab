// Pure generation of a private containerd's config.toml (config version 2 for 1.6/1.7, 3 for 2.x).

import type { HandlerSpec } from './driver.ts';

export type { HandlerSpec };

export interface ContainerdConfigInput {
  configVersion: 2 | 3;
  root: string;
  state: string;
  socket: string;
  optDir: string;
  pauseImage: string;
  cniBinDir: string;
  /** Config version 3 only: the option 2.0 reads (`bin_dir`) or 2.1+ (`bin_dirs`). */
  cniBinKey?: 'bin_dir' | 'bin_dirs';
  cniConfDir: string;
  /** Needed when we lack CAP_SYS_RESOURCE: the CRI plugin would set oom_score_adj -998 on the pause container. */
  restrictOomScoreAdj: boolean;
  defaultHandler: string;
  handlers: HandlerSpec[];
  /**
   * The CRI registry `config_path` (one hosts.toml directory per registry host): always set, so
   * that containerd never reads the host's /etc/containerd/certs.d (2.x's default).
   */
  registryConfigPath: string;
}

const q = (s: string): string => JSON.stringify(s);

function handlerTables(prefix: string, handlers: HandlerSpec[]): string[] {
  const out: string[] = [];
  for (const h of handlers) {
    const table = `${prefix}.${q(h.name)}`;
    if (h.kind === 'runsc') {
      out.push(
        `[${table}]`,
        `  runtime_type = "io.containerd.runsc.v1"`,
        `[${table}.options]`,
        `  TypeUrl = "io.containerd.runsc.v1.options"`,
      );
      if (h.runscConfigPath) out.push(`  ConfigPath = ${q(h.runscConfigPath)}`);
    } else {
      // runc, crun and youki share the runc shim's CLI contract: the shim runs BinaryName.
      out.push(
        `[${table}]`,
        `  runtime_type = "io.containerd.runc.v2"`,
        `[${table}.options]`,
        `  BinaryName = ${q(h.binary)}`,
      );
      if (h.shimCgroup) out.push(`  ShimCgroup = ${q(h.shimCgroup)}`);
    }
    out.push('');
  }
  return out;
}

export function renderContainerdConfig(c: ContainerdConfigInput): string {
  const head = [
    '# Written by runtime-bench `stack up`: a private containerd, separate from any system one.',
    `version = ${c.configVersion}`,
    `root = ${q(c.root)}`,
    `state = ${q(c.state)}`,
    '',
    '[grpc]',
    `  address = ${q(c.socket)}`,
    '',
  ];
  if (c.configVersion === 2) {
    const cri = 'plugins."io.containerd.grpc.v1.cri"';
    return [
      ...head,
      `[plugins."io.containerd.internal.v1.opt"]`,
      `  path = ${q(c.optDir)}`,
      '',
      `[${cri}]`,
      `  sandbox_image = ${q(c.pauseImage)}`,
      `  restrict_oom_score_adj = ${c.restrictOomScoreAdj}`,
      `[${cri}.cni]`,
      `  bin_dir = ${q(c.cniBinDir)}`,
      `  conf_dir = ${q(c.cniConfDir)}`,
      `[${cri}.registry]`,
      `  config_path = ${q(c.registryConfigPath)}`,
      `[${cri}.containerd]`,
      `  snapshotter = "overlayfs"`,
      `  default_runtime_name = ${q(c.defaultHandler)}`,
      '',
      ...handlerTables(`${cri}.containerd.runtimes`, c.handlers),
    ].join('\n');
  }
  const runtime = `plugins.'io.containerd.cri.v1.runtime'`;
  const images = `plugins.'io.containerd.cri.v1.images'`;
  return [
    ...head,
    `[plugins.'io.containerd.internal.v1.opt']`,
    `  path = ${q(c.optDir)}`,
    '',
    `[${images}]`,
    `  snapshotter = "overlayfs"`,
    `[${images}.pinned_images]`,
    `  sandbox = ${q(c.pauseImage)}`,
    `[${images}.registry]`,
    `  config_path = ${q(c.registryConfigPath)}`,
    '',
    `[${runtime}]`,
    `  restrict_oom_score_adj = ${c.restrictOomScoreAdj}`,
    `  enable_cdi = false`,
    `[${runtime}.cni]`,
    c.cniBinKey === 'bin_dir' ? `  bin_dir = ${q(c.cniBinDir)}` : `  bin_dirs = [${q(c.cniBinDir)}]`,
    `  conf_dir = ${q(c.cniConfDir)}`,
    `[${runtime}.containerd]`,
    `  default_runtime_name = ${q(c.defaultHandler)}`,
    '',
    ...handlerTables(`${runtime}.containerd.runtimes`, c.handlers),
  ].join('\n');
}

/** runsc's own config for the shim (platform systrap: KVM hangs in nested VMs). */
export function renderRunscConfig(runscBinary: string, root: string, platform = 'systrap'): string {
  return [
    `binary_name = ${q(runscBinary)}`,
    `root = ${q(root)}`,
    '[runsc_config]',
    `  platform = ${q(platform)}`,
    '',
  ].join('\n');
}

/** A bridge + host-local IPAM + loopback CNI conflist: loopback alone leaves pods without network info. */
export function renderCniConflist(
  networkName: string,
  bridge: string,
  subnet: string,
  ipamDataDir: string,
): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: networkName,
      plugins: [
        {
          type: 'bridge',
          bridge,
          isGateway: true,
          ipMasq: false,
          ipam: { type: 'host-local', ranges: [[{ subnet }]], dataDir: ipamDataDir },
        },
        { type: 'loopback' },
      ],
    },
    null,
    2,
  )}\n`;
}
