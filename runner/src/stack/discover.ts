import { access, constants, readFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { exec } from '../util/exec.ts';
import { RbError } from '../errors.ts';
import type { StackDriver } from './driver.ts';
import type { OciKind } from './state.ts';
import { goModuleVersion, guessOciKind, parseOciVersion, parseSemver } from './versions.ts';

/** First executable named `name` on PATH (or in the extra directories first). */
export async function which(name: string, extraDirs: string[] = []): Promise<string | null> {
  if (name.includes('/')) return (await isExecutable(name)) ? name : null;
  const dirs = [
    ...extraDirs,
    ...(process.env.PATH ?? '').split(delimiter),
    '/usr/local/sbin',
    '/usr/sbin',
    '/sbin',
  ];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A daemon binary (the one given with `flag`, or `name` on PATH) and the version it prints.
 * `install` says how to get it when it is missing.
 */
export async function findDaemonBinary(
  name: string,
  flag: string,
  explicit: string | undefined,
  install: string,
): Promise<{ path: string; version: string }> {
  const path = explicit ?? (await which(name));
  if (!path || !(await isExecutable(path))) {
    throw new RbError(
      `STACK_NO_${name.toUpperCase().replace(/-/g, '_')}`,
      explicit ? `${flag} ${explicit} is not an executable file` : `no ${name} binary on PATH`,
      `${install}, or pass ${flag} /path/to/${name}`,
    );
  }
  const out = await exec(path, ['--version'], { allowFailure: true, timeoutMs: 30_000 });
  const version = parseSemver(`${out.stdout}\n${out.stderr}`);
  if (out.exitCode !== 0 || !version)
    throw new RbError(
      'STACK_DAEMON_VERSION',
      `cannot read a version from "${`${out.stdout}${out.stderr}`.trim().split('\n')[0] ?? ''}" (${path} --version)`,
    );
  return { path, version };
}

export interface OciRuntimeBinary {
  name: string;
  kind: OciKind;
  binary: string;
  version: string;
  versionOutput: string;
}

export interface DiscoveredHandlers {
  handlers: OciRuntimeBinary[];
  skipped: { name: string; binary: string; reason: string }[];
}

export async function ociVersion(
  kind: string,
  binary: string,
): Promise<{ version: string; output: string } | { error: string }> {
  const out = await exec(binary, ['--version'], { allowFailure: true, timeoutMs: 10_000 });
  const text = `${out.stdout}${out.stderr}`.trim();
  let version = out.exitCode === 0 ? parseOciVersion(kind, text) : null;
  if (kind === 'runsc' && version === 'VERSION_MISSING') {
    version = goModuleVersion(await readFile(binary), 'gvisor.dev/gvisor') ?? version;
  }
  return version
    ? { version, output: text }
    : { error: `${binary} --version failed: ${text.split('\n')[0] ?? ''}` };
}

/** containerd-shim-runsc-v1 beside a runsc binary (an install keeps them together) or on PATH. */
export async function runscShimFor(runscBinary: string): Promise<string | null> {
  return (await which('containerd-shim-runsc-v1', [dirname(runscBinary)])) ?? null;
}

/**
 * One handler per OCI runtime found on the host (runc, crun, youki; runsc under containerd only
 * with its shim), plus the extra binaries a config names. Combinations the driver knows not to work
 * are skipped with its reason.
 */
export async function discoverHandlers(
  driver: Pick<StackDriver, 'runscNeedsShim' | 'incompatibility'>,
  daemonVersion: string,
  extra: { name: string; binary: string; kind?: OciKind | undefined }[],
): Promise<DiscoveredHandlers> {
  const candidates: { name: string; kind: OciKind; binary: string }[] = [];
  const skipped: DiscoveredHandlers['skipped'] = [];
  for (const kind of ['runc', 'crun', 'youki', 'runsc'] as const) {
    const binary = await which(kind);
    if (!binary) continue;
    if (kind === 'runsc' && driver.runscNeedsShim && !(await runscShimFor(binary))) {
      skipped.push({
        name: kind,
        binary,
        reason:
          'runsc found but containerd-shim-runsc-v1 is not on PATH (the runc shim cannot track runsc containers)',
      });
      continue;
    }
    candidates.push({ name: kind, kind, binary });
  }
  for (const e of extra) {
    const kind = e.kind ?? guessOciKind(e.binary);
    if (!kind) {
      throw new RbError(
        'CONFIG_INVALID',
        `stack.extraHandlers: cannot tell which OCI runtime ${e.binary} is`,
        `add kind: runc | crun | youki | runsc to the "${e.name}" entry`,
      );
    }
    if (candidates.some((c) => c.name === e.name)) {
      throw new RbError(
        'CONFIG_INVALID',
        `stack.extraHandlers: handler name "${e.name}" is already used`,
        'give each extra handler a unique name, e.g. runc-1.3.6',
      );
    }
    if (kind === 'runsc' && driver.runscNeedsShim && !(await runscShimFor(e.binary))) {
      skipped.push({
        name: e.name,
        binary: e.binary,
        reason: `no containerd-shim-runsc-v1 beside ${e.binary} or on PATH (the runc shim cannot track runsc containers)`,
      });
      continue;
    }
    candidates.push({ name: e.name, kind, binary: e.binary });
  }
  const handlers: OciRuntimeBinary[] = [];
  for (const c of candidates) {
    const v = await ociVersion(c.kind, c.binary);
    if ('error' in v) {
      skipped.push({ ...c, reason: v.error });
      continue;
    }
    const why = driver.incompatibility(daemonVersion, c.kind, v.version);
    if (why) skipped.push({ name: c.name, binary: c.binary, reason: why });
    else handlers.push({ ...c, version: v.version, versionOutput: v.output });
  }
  return { handlers, skipped };
}
