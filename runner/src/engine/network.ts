// Executes an engine's network plan (network-plan.ts): the private bridge network created on first
// use (only engine.network.throughput needs one; the other engine.* benchmarks run with
// --network none), removed through the engine before its daemon stops, and afterwards a sweep of
// what the host may still hold: the bridge, the CNI IPAM leases, the iptables chains the CNI
// plugins created and never remove, and the sysctls (ip_forward, route_localnet) they may set.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { errorMessage } from '../errors.ts';
import { which } from '../util/path-search.ts';
import { exec, type ExecResult } from '../util/exec.ts';
import { deleteLink } from '../util/net-link.ts';
import { leftoverCommands } from './iptables-leftovers.ts';
import {
  CNI_IPAM_DIR,
  bridgePrefix,
  freeSubnet,
  planEngineNetwork,
  renameBridge,
  type EngineNetworkPlan,
} from './network-plan.ts';
import type { EnginePlan } from './engine-plan.ts';

/** Host-wide switches a bridge network's plugins may flip; restored when the run changed them. */
const SYSCTLS = ['/proc/sys/net/ipv4/ip_forward', '/proc/sys/net/ipv4/conf/all/route_localnet'];

export interface EngineNetwork {
  /** The network, created on the first call. */
  ensure(): Promise<EngineNetworkPlan>;
  /** Removes it through the engine: the run's containers are gone, the daemon still answers. */
  remove(): Promise<string[]>;
  /** After the engine is down: whatever of the network the host still holds. */
  sweep(): Promise<string[]>;
  /** What carries the published port, once the network exists; null when it never did. */
  backend(): string | null;
}

interface Snapshot {
  iptables: Map<string, string>;
  sysctls: Map<string, string>;
}

async function iptablesSaves(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const family of ['iptables', 'ip6tables']) {
    const save = await which(`${family}-save`);
    if (!save) continue;
    const r = await exec(save, [], { allowFailure: true, timeoutMs: 30_000 });
    if (r.exitCode === 0) out.set(family, r.stdout);
  }
  return out;
}

async function snapshot(): Promise<Snapshot> {
  const sysctls = new Map<string, string>();
  for (const path of SYSCTLS) {
    const v = await readFile(path, 'utf8').catch(() => null);
    if (v !== null) sysctls.set(path, v.trim());
  }
  return { iptables: await iptablesSaves(), sysctls };
}

/**
 * Gives the bridge of network `name` our name (whose prefix the reaper of a killed run knows) in
 * the file `network create` wrote to `dir`, before any container makes the bridge.
 */
async function nameBridge(dir: string, name: string, bridge: string): Promise<void> {
  // nerdctl keeps a non-default namespace's networks in a subdirectory named after it.
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.includes(name))
    .map((e) => relative(dir, join(e.parentPath, e.name)));
  let renamed = 0;
  for (const f of files) {
    const text = await readFile(join(dir, f), 'utf8');
    const edited = renameBridge(text, bridge);
    if (edited === null) continue;
    await writeFile(join(dir, f), edited);
    renamed++;
  }
  if (renamed !== 1)
    throw new Error(`expected one configuration file of network ${name} in ${dir}, found ${renamed}`);
}

/** The network of the engine planned as `plan`; `cli` runs the engine's CLI with its global arguments. */
export function engineNetwork(
  plan: EnginePlan,
  cli: (args: readonly string[], timeoutMs: number) => Promise<ExecResult>,
): EngineNetwork {
  // The plan's root is <engines dir>/<run key>/<target index>.
  const index = basename(plan.root);
  const runKey = basename(dirname(plan.root));
  let created: EngineNetworkPlan | null = null;
  let pending: Promise<EngineNetworkPlan> | null = null;
  let before: Snapshot | null = null;
  const create = async (): Promise<EngineNetworkPlan> => {
    before = await snapshot();
    const subnet = freeSubnet(await readFile('/proc/net/route', 'utf8'), Number(index) || 0);
    const net = planEngineNetwork(plan.engine, runKey, index, subnet, plan.networkConfigDir);
    created = net;
    const r = await cli([...plan.globalArgs, ...net.createArgs], 60_000);
    if (r.exitCode !== 0)
      throw new Error(
        `${plan.engine} network create ${net.name} failed: ${r.stderr.trim() || r.stdout.trim()}`,
      );
    if (net.configDir) await nameBridge(net.configDir, net.name, net.bridge);
    return net;
  };
  return {
    ensure: () => (pending ??= create()),
    backend: () => created?.backend ?? null,
    async remove() {
      if (!created) return [];
      const r = await cli([...plan.globalArgs, ...created.removeArgs], 60_000);
      // "not found": the create failed half-way or an earlier remove got it.
      return r.exitCode === 0 || /not found|no such network/i.test(r.stderr)
        ? []
        : [`${plan.engine} network rm ${created.name}: ${r.stderr.trim()}`];
    },
    async sweep() {
      if (!created || !before) return [];
      const problems = await deleteLink(created.bridge);
      for (const path of created.leftovers)
        await rm(path, { recursive: true, force: true }).catch((e: unknown) =>
          problems.push(`${path}: ${errorMessage(e)}`),
        );
      problems.push(...(await sweepFirewall(before.iptables, created.name)));
      for (const [path, value] of before.sysctls) {
        const now = (await readFile(path, 'utf8').catch(() => value)).trim();
        if (now !== value)
          await writeFile(path, `${value}\n`).catch((e: unknown) =>
            problems.push(`${path}: ${errorMessage(e)}`),
          );
      }
      return problems;
    },
  };
}

/** The host's iptables rules now, per family (iptables, ip6tables). */
export const firewallSnapshot = iptablesSaves;

/**
 * Removes the chains (and the jumps into them) that appeared since `before` and that no live
 * container uses, and the rules of CNI network `own`. A network sweeps with its own snapshot; the
 * engine kind sweeps again after every engine is down with the run's, which also sees the shared
 * chains another network created after a network's snapshot.
 */
export async function sweepFirewall(before: Map<string, string>, own?: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [family, text] of await iptablesSaves())
    for (const args of leftoverCommands(before.get(family) ?? '', text, own)) {
      const r = await exec(family, ['-w', ...args], { allowFailure: true, timeoutMs: 30_000 });
      if (r.exitCode !== 0) problems.push(`${family} ${args.join(' ')}: ${r.stderr.trim()}`);
    }
  return problems;
}

/** What the networks of a killed run (`runKey`) left without a teardown: bridges and IPAM leases. */
export async function reapNetworks(runKey: string): Promise<string[]> {
  const problems: string[] = [];
  for (const link of await readdir('/sys/class/net').catch(() => [] as string[]))
    if (link.startsWith(bridgePrefix(runKey))) problems.push(...(await deleteLink(link)));
  for (const dir of await readdir(CNI_IPAM_DIR).catch(() => [] as string[]))
    if (dir.startsWith(`rb-${runKey}-`)) await rm(`${CNI_IPAM_DIR}/${dir}`, { recursive: true, force: true });
  return problems;
}
