// Network links (bridges) the tool makes, addresses and removes, over iproute2's `ip`: the one
// place the stack's teardown, an engine's network teardown and the cluster's node address do it.
import { existsSync } from 'node:fs';
import { exec } from './exec.ts';

/** Does link `name` exist in our network namespace? */
export function linkExists(name: string): boolean {
  return existsSync(`/sys/class/net/${name}`);
}

/** Creates bridge `name`; throws CommandError when `ip` refuses. */
export async function addBridge(name: string): Promise<void> {
  await exec('ip', ['link', 'add', name, 'type', 'bridge']);
}

/** The IPv4 addresses (`10.233.7.1/24`) in `ip -4 -o addr show` output, in its order. */
export function parseIpv4Addresses(text: string): string[] {
  return [...text.matchAll(/\binet (\S+)/g)].map((m) => m[1]!);
}

/** The IPv4 addresses of link `name` (CIDR notation). */
export async function ipv4Addresses(name: string): Promise<string[]> {
  return parseIpv4Addresses((await exec('ip', ['-4', '-o', 'addr', 'show', 'dev', name])).stdout);
}

/** Adds `cidr` (`10.233.7.1/24`) to link `name`. */
export async function addAddress(name: string, cidr: string): Promise<void> {
  await exec('ip', ['addr', 'add', cidr, 'dev', name]);
}

export async function setLinkUp(name: string): Promise<void> {
  await exec('ip', ['link', 'set', name, 'up']);
}

/** Deletes link `name` if it exists; returns what could not be removed (empty when all went). */
export async function deleteLink(name: string): Promise<string[]> {
  if (!linkExists(name)) return [];
  const r = await exec('ip', ['link', 'del', name], { allowFailure: true });
  return r.exitCode === 0 ? [] : [`bridge ${name}: ${r.stderr.trim()}`];
}
