import { writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { HostFixSchema, ComponentSchema } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';
import { RegistryStateSchema } from './registry-config.ts';
import { readTextFileIfExists } from '../util/read-file.ts';

export const DEFAULT_STACK_ROOT = '/var/lib/runtime-bench/stacks';

export const CriNameSchema = z.enum(['containerd', 'cri-o']);
export type CriName = z.output<typeof CriNameSchema>;

export const OciKindSchema = z.enum(['runc', 'crun', 'youki', 'runsc']);
export type OciKind = z.output<typeof OciKindSchema>;

/** What every stack records, whichever CRI runtime it runs. */
const commonState = {
  name: z.string(),
  stateDir: z.string(),
  socket: z.string(),
  /** The CRI daemon's PID while it runs; null once `down` stopped it. */
  pid: z.int().nullable(),
  startedAt: z.string(),
  /** The CRI daemon: its binary, version, config file and log. */
  daemon: z.strictObject({
    path: z.string(),
    version: z.string(),
    configPath: z.string(),
    logPath: z.string(),
  }),
  handlers: z.array(
    z.strictObject({
      name: z.string(),
      kind: OciKindSchema,
      binary: z.string(),
      version: z.string(),
      versionOutput: z.string(),
    }),
  ),
  skippedHandlers: z.array(z.strictObject({ name: z.string(), binary: z.string(), reason: z.string() })),
  hostFixes: z.array(HostFixSchema),
  network: z.strictObject({ name: z.string(), bridge: z.string(), subnet: z.string() }),
  images: z.strictObject({ pause: z.string(), bench: z.string() }),
  /** Versions of what the images were built from (sysbench, busybox, catatonit) and their digests. */
  imageComponents: z.array(ComponentSchema),
  /** The stack's own image registry on loopback (registry.ts); absent without docker-registry. */
  registry: RegistryStateSchema.optional(),
};

const ContainerdStackStateSchema = z.strictObject({
  cri: z.literal('containerd'),
  ...commonState,
  containerd: z.strictObject({ configVersion: z.union([z.literal(2), z.literal(3)]), ctr: z.string() }),
});

const CrioStackStateSchema = z.strictObject({
  cri: z.literal('cri-o'),
  ...commonState,
  crio: z.strictObject({
    pinns: z.string(),
    conmon: z.string(),
    skopeo: z.string(),
    /** containers-storage's root and runroot, and the storage.conf naming them (for skopeo). */
    storageRoot: z.string(),
    runRoot: z.string(),
    storageConf: z.string(),
    /** Each handler's OCI runtime state root is <runtimeRootDir>/<handler>. */
    runtimeRootDir: z.string(),
    namespacesDir: z.string(),
  }),
});

/** The record `stack up` leaves in <state dir>/stack.json; `run`, `status` and `down` read it. */
export const StackStateSchema = z.discriminatedUnion('cri', [
  ContainerdStackStateSchema,
  CrioStackStateSchema,
]);
export type StackState = z.output<typeof StackStateSchema>;
export type ContainerdStackState = z.output<typeof ContainerdStackStateSchema>;
export type CrioStackState = z.output<typeof CrioStackStateSchema>;

export function stackStateDir(name: string, root = DEFAULT_STACK_ROOT): string {
  return join(root, name);
}

export function stackStatePath(stateDir: string): string {
  return join(stateDir, 'stack.json');
}

/** The stack's state, or null when it was never brought up (no file). Any other problem is an error. */
export async function readStackState(stateDir: string): Promise<StackState | null> {
  const text = await readTextFileIfExists(stackStatePath(stateDir), {
    code: 'STACK_STATE',
    message: (reason) => `cannot read ${stackStatePath(stateDir)}: ${reason}`,
  });
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'STACK_STATE',
      `${stackStatePath(stateDir)} is not JSON: ${errorMessage(error)}`,
      'run `runtime-bench stack down` and `stack up` again',
    );
  }
  return parseWithFriendlyErrors(StackStateSchema, json, stackStatePath(stateDir), {
    code: 'STACK_STATE',
    hint: 'the stack was brought up by another runtime-bench version: run `stack down` then `stack up`',
  });
}

export async function writeStackState(state: StackState): Promise<void> {
  const path = stackStatePath(state.stateDir);
  await writeFile(`${path}.tmp`, `${JSON.stringify(StackStateSchema.parse(state), null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}
