import { readFile, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { HostFixSchema, ComponentSchema } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';

export const DEFAULT_STACK_ROOT = '/var/lib/runtime-bench/stacks';

/** The record `stack up` leaves in <state dir>/stack.json; `run`, `status` and `down` read it. */
export const StackStateSchema = z.strictObject({
  name: z.string(),
  stateDir: z.string(),
  socket: z.string(),
  pid: z.int().nullable(),
  startedAt: z.string(),
  containerd: z.strictObject({
    path: z.string(),
    version: z.string(),
    configVersion: z.union([z.literal(2), z.literal(3)]),
  }),
  ctr: z.string(),
  handlers: z.array(
    z.strictObject({
      name: z.string(),
      kind: z.enum(['runc', 'crun', 'youki', 'runsc']),
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
});
export type StackState = z.output<typeof StackStateSchema>;

export function stackStateDir(name: string, root = DEFAULT_STACK_ROOT): string {
  return join(root, name);
}

export function stackStatePath(stateDir: string): string {
  return join(stateDir, 'stack.json');
}

/** The stack's state, or null when it was never brought up (no file). Any other problem is an error. */
export async function readStackState(stateDir: string): Promise<StackState | null> {
  let text: string;
  try {
    text = await readFile(stackStatePath(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new RbError('STACK_STATE', `cannot read ${stackStatePath(stateDir)}: ${errorMessage(error)}`);
  }
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
