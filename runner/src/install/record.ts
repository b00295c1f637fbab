// The install record: what one `runtime-bench install` put where, which handlers and stack
// config it produced, and what it created, so that `uninstall` removes exactly that.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ExtraHandlerSchema } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';

export const InstalledComponentSchema = z.strictObject({
  name: z.string().min(1),
  role: z.enum(['cri', 'oci', 'tool', 'workload']),
  version: z.string().min(1),
  source: z.enum(['release', 'distro', 'path']),
  /** null for the path source, which installs nothing. */
  dir: z.string().nullable(),
  /** Executable name → absolute path. */
  binaries: z.record(z.string(), z.string()),
  /** What the main binary printed as its version, parsed; null when it prints none. */
  reported: z.string().nullable(),
  detail: z.string(),
  /** False when the directory was already there (another install made it): uninstall keeps it. */
  createdByThisInstall: z.boolean(),
});
export type InstalledComponent = z.output<typeof InstalledComponentSchema>;

export const InstallRecordSchema = z.strictObject({
  recordVersion: z.literal(1),
  prefix: z.string(),
  source: z.enum(['release', 'distro', 'path']),
  createdAt: z.string(),
  components: z.array(InstalledComponentSchema),
  /** One CRI handler per OCI runtime@version, as `stack.extraHandlers` of a config wants them. */
  handlers: z.array(ExtraHandlerSchema),
  /** The containerd binaries installed, one per version, for `stack up --containerd`. */
  containerd: z.array(z.strictObject({ version: z.string(), binary: z.string() })),
  crictl: z.string().nullable(),
  /** Config file holding `stack.extraHandlers`, for `stack up --config`. */
  stackConfig: z.string(),
  /** Paths this install created, in creation order; uninstall removes them in reverse. */
  created: z.array(z.string()),
  /** Stacks started from this install (the action adds them); uninstall stops them first. */
  stacks: z.array(z.strictObject({ name: z.string(), stateDir: z.string().optional() })),
});
export type InstallRecord = z.output<typeof InstallRecordSchema>;

export async function readInstallRecord(path: string): Promise<InstallRecord> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RbError(
      'INSTALL_RECORD',
      `${path}: cannot read the install record (${errorMessage(error)})`,
      'pass the --state file that install wrote',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError('INSTALL_RECORD', `${path}: not JSON (${errorMessage(error)})`);
  }
  return parseWithFriendlyErrors(InstallRecordSchema, json, path, { code: 'INSTALL_RECORD' });
}

/** Writes atomically: a crash never leaves a half record that uninstall could not read. */
export async function writeInstallRecord(path: string, record: InstallRecord): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(InstallRecordSchema.parse(record), null, 2)}\n`);
  await rename(tmp, path);
}

/** Notes a started stack in the record before it starts, so a half-started stack is still stopped. */
export async function addStackToRecord(
  path: string,
  stack: { name: string; stateDir?: string },
): Promise<void> {
  const record = await readInstallRecord(path);
  if (!record.stacks.some((s) => s.name === stack.name)) record.stacks.push(stack);
  await writeInstallRecord(path, record);
}
