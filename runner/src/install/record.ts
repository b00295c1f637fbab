// The install record: what one `runtime-bench install` put where, which handlers and stack
// config it produced, and what it created, so that `uninstall` removes exactly that.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { ComponentBuildSchema, ExtraHandlerSchema, type ConfigInput } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';
import { COMPONENTS, SOURCES, handlerName, type ComponentName, type Source } from './components.ts';
import { VERIFICATION_KINDS } from './verification.ts';
import { readTextFile } from '../util/read-file.ts';

export const InstalledComponentSchema = z.strictObject({
  name: z.string().min(1),
  role: z.enum(['cri', 'oci', 'tool', 'workload']),
  version: z.string().min(1),
  source: z.enum(SOURCES),
  /** null for the path source, which installs nothing. */
  dir: z.string().nullable(),
  /** Executable name → absolute path. */
  binaries: z.record(z.string(), z.string()),
  /** What the main binary printed as its version, parsed; null when it prints none. */
  reported: z.string().nullable(),
  detail: z.string(),
  /** False when the directory was already there (another install made it): uninstall keeps it. */
  createdByThisInstall: z.boolean(),
  /** How it was built, for the build sources (go, cargo, git, debian-source). */
  build: ComponentBuildSchema.optional(),
  /**
   * Release source, placed by this install: each download's digest and what vouched for it (absent
   * in older records, and for a directory another install placed).
   */
  verification: z
    .array(
      z.strictObject({
        file: z.string().min(1),
        algorithm: z.enum(['sha256', 'sha512']),
        by: z.enum(VERIFICATION_KINDS),
        /** The checksum file's or the release API's URL, or `the pinned table`. */
        from: z.string().min(1),
        digest: z.string().regex(/^[0-9a-f]+$/),
      }),
    )
    .optional(),
});
export type InstalledComponent = z.output<typeof InstalledComponentSchema>;

export const InstallRecordSchema = z.strictObject({
  recordVersion: z.literal(1),
  prefix: z.string(),
  source: z.enum(SOURCES),
  createdAt: z.string(),
  components: z.array(InstalledComponentSchema),
  /** One CRI handler per OCI runtime@version, as `stack.extraHandlers` of a config wants them. */
  handlers: z.array(ExtraHandlerSchema),
  /** The containerd binaries installed, one per version, for `stack up --containerd`. */
  containerd: z.array(z.strictObject({ version: z.string(), binary: z.string() })),
  /** The CRI-O binaries, one per version, for `stack up --cri cri-o --crio`; pinns and conmon beside. */
  crio: z
    .array(
      z.strictObject({
        version: z.string(),
        binary: z.string(),
        pinns: z.string().nullable(),
        conmon: z.string().nullable(),
      }),
    )
    .default([]),
  crictl: z.string().nullable(),
  /** Config file holding `stack.extraHandlers`, for `stack up --config`. */
  stackConfig: z.string(),
  /** Paths this install created, in creation order; uninstall removes them in reverse. */
  created: z.array(z.string()),
  /** Stacks started from this install (the action adds them); uninstall stops them first. */
  stacks: z.array(z.strictObject({ name: z.string(), stateDir: z.string().optional() })),
});
export type InstallRecord = z.output<typeof InstallRecordSchema>;

/** OCI runtimes the stack knows how to register (kata is refused by the plan). */
type HandlerKind = 'runc' | 'crun' | 'youki' | 'runsc';

/**
 * The record of an install whose components are all in place, and the text of its stack config
 * (written beside the record): pure, so that what install reports is decided in one place.
 */
export function buildInstallRecord(input: {
  prefix: string;
  source: Source;
  statePath: string;
  createdAt: string;
  components: InstalledComponent[];
  /** Paths created so far (the stack config's directory is added when new). */
  created: string[];
}): { record: InstallRecord; stackConfigText: string } {
  const { components } = input;
  const main = (c: InstalledComponent) => c.binaries[COMPONENTS[c.name as ComponentName].binaries[0]!.name]!;
  const handlers = components
    .filter((c) => c.role === 'oci')
    .map((c) => ({ name: handlerName(c.name, c.version), binary: main(c), kind: c.name as HandlerKind }));
  const config: ConfigInput = { stack: { extraHandlers: handlers } };
  const record: InstallRecord = {
    recordVersion: 1,
    prefix: input.prefix,
    source: input.source,
    createdAt: input.createdAt,
    components,
    handlers,
    containerd: components
      .filter((c) => c.name === 'containerd')
      .map((c) => ({ version: c.version, binary: main(c) })),
    crio: components
      .filter((c) => c.name === 'cri-o')
      .map((c) => ({
        version: c.version,
        binary: main(c),
        pinns: c.binaries.pinns ?? null,
        conmon: c.binaries.conmon ?? null,
      })),
    crictl: components.find((c) => c.name === 'crictl')?.binaries.crictl ?? null,
    stackConfig: join(dirname(input.statePath), 'stack.yaml'),
    created: [...new Set(input.created)],
    stacks: [],
  };
  const stackConfigText = `# Written by runtime-bench install: one CRI handler per OCI runtime@version.\n${stringify(config)}`;
  return { record, stackConfigText };
}

export async function readInstallRecord(path: string): Promise<InstallRecord> {
  const text = await readTextFile(path, {
    code: 'INSTALL_RECORD',
    message: (reason) => `${path}: cannot read the install record (${reason})`,
    hint: 'pass the --state file that install wrote',
  });
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
