// Removing a network link (a bridge) the tool made: the one way the stack's teardown and an
// engine's network teardown both do it.
import { existsSync } from 'node:fs';
import { exec } from './exec.ts';

/** Deletes link `name` if it exists; returns what could not be removed (empty when all went). */
export async function deleteLink(name: string): Promise<string[]> {
  if (!existsSync(`/sys/class/net/${name}`)) return [];
  const r = await exec('ip', ['link', 'del', name], { allowFailure: true });
  return r.exitCode === 0 ? [] : [`bridge ${name}: ${r.stderr.trim()}`];
}
