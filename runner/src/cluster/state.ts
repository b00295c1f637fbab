// The record `cluster up` leaves in <state dir>/cluster.json before each step that needs undoing;
// `cluster down` and `cluster status` read it.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';

export const DEFAULT_CLUSTER_ROOT = '/var/lib/runtime-bench/clusters';

const ClusterStateSchema = z.strictObject({
  name: z.string(),
  stack: z.string(),
  stateDir: z.string(),
  binDir: z.string(),
  kubeconfig: z.string(),
  criSocket: z.string(),
  nodeName: z.string(),
  nodeIp: z.string(),
  cgroupRoot: z.string(),
  /** Values before the kubelet started; restored by `down`. */
  sysctls: z.record(z.string(), z.string()),
  /** Host paths that did not exist before `up`: `down` removes them. */
  createdPaths: z.array(z.string()),
  /** The bridge `up` created (the stack had not made it yet), or null. */
  createdBridge: z.string().nullable(),
  pids: z.record(z.string(), z.int()),
});
export type ClusterState = z.output<typeof ClusterStateSchema>;

export function clusterStateDir(name: string, root = DEFAULT_CLUSTER_ROOT): string {
  return join(root, name);
}

export const statePath = (dir: string): string => join(dir, 'cluster.json');

export async function readClusterState(dir: string): Promise<ClusterState | null> {
  let text: string;
  try {
    text = await readFile(statePath(dir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // Written by us, but read from disk: a file cut short or written by another version is bad
  // input with a fix, not an internal error.
  const hint = `the cluster was brought up by another runtime-bench version or its state was cut short: stop its processes (their command lines name ${dir}) and remove ${dir}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError('CLUSTER_STATE', `${statePath(dir)} is not JSON: ${errorMessage(error)}`, hint);
  }
  return parseWithFriendlyErrors(ClusterStateSchema, json, statePath(dir), { code: 'CLUSTER_STATE', hint });
}

export async function writeClusterState(state: ClusterState): Promise<void> {
  const path = statePath(state.stateDir);
  await writeFile(`${path}.tmp`, `${JSON.stringify(ClusterStateSchema.parse(state), null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}
