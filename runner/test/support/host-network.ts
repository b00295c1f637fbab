// What a container network can leave on the host, as the integration tests compare it before and
// after a run: iptables (and ip6tables) rules and user chains, bridge and veth links, listeners
// of the engines' port publishers, the sysctls bridge plugins set, the CNI IPAM leases.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { onPath } from './host.ts';

const run = (cmd: string, args: string[]): string => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' });
  } catch {
    return '';
  }
};

/**
 * The rules and user chains of `<family>-save`, each prefixed by its table. Tables that hold only
 * built-in chains are left out: iptables-nft registers a table on its first use and has no
 * command to unregister one, and an empty table with ACCEPT policies filters nothing.
 */
function firewall(family: 'iptables' | 'ip6tables'): string[] {
  if (!onPath(`${family}-save`)) return [];
  let table = '';
  const out: string[] = [];
  for (const line of run(`${family}-save`, []).split('\n')) {
    if (line.startsWith('*')) table = line.slice(1);
    else if (line.startsWith('-A ') || /^:\S+ - /.test(line))
      out.push(`${family} ${table} ${line.replace(/ \[\d+:\d+\]$/, '')}`);
  }
  return out.sort();
}

export interface HostNetwork {
  firewall: string[];
  links: string[];
  listeners: string[];
  sysctls: Record<string, string>;
  ipam: string[];
}

export function hostNetwork(): HostNetwork {
  const links = run('ip', ['-o', 'link', 'show'])
    .split('\n')
    .map((l) => l.split(': ')[1]?.split('@')[0] ?? '')
    // Our bridges, the engines' default ones, and container veths.
    .filter((n) => /^(rb[0-9a-f]{8}|cni-podman|podman|nerdctl|br-|docker|veth)/.test(n))
    .sort();
  // Only the port publishers' listeners: tests elsewhere on the host open and close their own.
  const listeners = run('ss', ['-ltnpH'])
    .split('\n')
    .filter((l) => /docker-proxy|conmon|containerd|nerdctl|rootlessport/.test(l))
    .map((l) => l.split(/\s+/)[3] ?? l)
    .sort();
  const sysctls: Record<string, string> = {};
  for (const s of ['net/ipv4/ip_forward', 'net/ipv4/conf/all/route_localnet'])
    sysctls[s] = readFileSync(`/proc/sys/${s}`, 'utf8').trim();
  const ipamDir = '/var/lib/cni/networks';
  const ipam = existsSync(ipamDir) ? readdirSync(ipamDir).filter((d) => d.startsWith('rb-')) : [];
  return { firewall: [...firewall('iptables'), ...firewall('ip6tables')], links, listeners, sysctls, ipam };
}
