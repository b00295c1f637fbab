// Pure planning of an engine's private network (for engine.network.throughput's published port):
// its name, bridge and subnet, the CLI arguments that create and remove it, and what a teardown
// must find gone on the host afterwards. engine/network.ts executes it.
import type { EngineName } from '@runtime-bench/schemas';

/** A private bridge network of one engine target. */
export interface EngineNetworkPlan {
  name: string;
  /** The host's bridge device (at most 15 characters, as the kernel allows). */
  bridge: string;
  subnet: string;
  createArgs: string[];
  removeArgs: string[];
  /**
   * Podman's and nerdctl's private network configuration directory: the file `network create`
   * writes there gets the bridge name (rename.ts), since neither CLI names it on every version.
   */
  configDir: string | null;
  /**
   * What carries the published port: Docker's userland docker-proxy (its daemon runs without
   * iptables, so no NAT rule is ever written), Podman's and nerdctl's CNI portmap (DNAT rules).
   */
  backend: string;
  /** Host paths the CNI host-local IPAM keeps per network name, removed at the teardown. */
  leftovers: string[];
}

/** The prefix of every bridge of run `runKey`: the reaper of a killed run removes these. */
export const bridgePrefix = (runKey: string): string => `rb${runKey}`;

/** Where the CNI host-local IPAM keeps its leases (Podman's CNI backend and nerdctl use the default). */
export const CNI_IPAM_DIR = '/var/lib/cni/networks';

/**
 * The network of target `index` of run `runKey` on `subnet`, `configDir` the engine's private
 * network configuration directory (Podman, nerdctl). Docker names the bridge by its driver
 * option; Podman 4.3 and nerdctl have no flag for it, so the file they write is edited.
 */
export function planEngineNetwork(
  engine: EngineName,
  runKey: string,
  index: string,
  subnet: string,
  configDir: string | null,
): EngineNetworkPlan {
  const name = `rb-${runKey}-${index}`;
  const bridge = `${bridgePrefix(runKey)}${index}`.slice(0, 15);
  const common = ['network', 'create', '--driver', 'bridge', '--subnet', subnet];
  const named = engine === 'docker' ? ['--opt', `com.docker.network.bridge.name=${bridge}`] : [];
  return {
    name,
    bridge,
    subnet,
    configDir: engine === 'docker' ? null : configDir,
    createArgs: [...common, ...named, name],
    removeArgs: ['network', 'rm', name],
    backend: engine === 'docker' ? 'bridge, docker-proxy (no iptables)' : 'cni bridge + portmap',
    leftovers: engine === 'docker' ? [] : [`${CNI_IPAM_DIR}/${name}`],
  };
}

/** The IPv4 routes of /proc/net/route as [network, mask] pairs (host byte order numbers). */
export function parseRoutes(procNetRoute: string): [number, number][] {
  const swap = (hex: string): number => {
    const v = Number.parseInt(hex, 16);
    // /proc/net/route prints the address as the little-endian 32-bit number it is in memory.
    return (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;
  };
  return procNetRoute
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && /^[0-9A-Fa-f]{8}$/.test(f[1]!) && /^[0-9A-Fa-f]{8}$/.test(f[7]!))
    .map((f) => [swap(f[1]!), swap(f[7]!)] as [number, number])
    // The default route (mask 0) overlaps everything and says nothing about local subnets.
    .filter(([, mask]) => mask !== 0);
}

/**
 * A /24 in 10.213.0.0/16 that no route of the host overlaps, starting at the third octet `start`
 * (the target's index, so two engines of one run, whose bridges may not be up yet, differ).
 */
export function freeSubnet(procNetRoute: string, start: number): string {
  const routes = parseRoutes(procNetRoute);
  for (let k = 0; k < 256; k++) {
    const third = (start + k) % 256;
    const net = ((10 << 24) | (213 << 16) | (third << 8)) >>> 0;
    const mask = 0xffffff00;
    const overlaps = routes.some(([r, m]) => {
      const common = (m & mask) >>> 0;
      return ((r & common) >>> 0) === ((net & common) >>> 0);
    });
    if (!overlaps) return `10.213.${third}.0/24`;
  }
  throw new Error('no free /24 in 10.213.0.0/16: every one overlaps a route of this host');
}

/**
 * A network configuration file with its bridge renamed: a CNI conflist (Podman's CNI backend,
 * nerdctl) names it in the bridge plugin, netavark's JSON in network_interface. Null when the
 * file names no bridge (not this network's).
 */
export function renameBridge(text: string, bridge: string): string | null {
  const config = JSON.parse(text) as {
    plugins?: { type?: string; bridge?: string }[];
    network_interface?: string;
  };
  const plugin = config.plugins?.find((p) => p.type === 'bridge');
  if (plugin) plugin.bridge = bridge;
  else if (typeof config.network_interface === 'string') config.network_interface = bridge;
  else return null;
  return `${JSON.stringify(config, null, 2)}\n`;
}
