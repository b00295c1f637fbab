import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { exec } from '../util/exec.ts';
import { isExecutable, which } from '../util/path-search.ts';
import { RbError } from '../errors.ts';
import type { StackDriver } from './driver.ts';
import type { OciKind } from './state.ts';
import { goModuleVersion, guessOciKind, interpretOciVersion, parseSemver } from './versions.ts';

/** How long a runtime or daemon may take to print its version before it (and its children) is killed. */
export const VERSION_TIMEOUT_MS = 10_000;
/** Bytes of a `--version` output read (a binary that prints megabytes is cut, not buffered). */
const VERSION_OUTPUT_BYTES = 64 * 1024;

/** Why `path` cannot be run as a program (missing, a directory, not executable), or null. */
export async function notRunnable(path: string): Promise<string | null> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) return 'is a directory';
    if (!st.isFile()) return 'is not a regular file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${code})`;
  }
  return (await isExecutable(path)) ? null : 'is not executable (chmod +x)';
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
  const problem = path ? await notRunnable(path) : 'is not on PATH';
  if (!path || problem) {
    throw new RbError(
      `STACK_NO_${name.toUpperCase().replace(/-/g, '_')}`,
      explicit ? `${flag} ${explicit} ${problem}` : `no ${name} binary on PATH`,
      `${install}, or pass ${flag} /path/to/${name}`,
      // A flag naming a file that cannot run is bad input.
      explicit ? { exitCode: 2 } : undefined,
    );
  }
  const out = await exec(path, ['--version'], {
    allowFailure: true,
    timeoutMs: 3 * VERSION_TIMEOUT_MS,
    maxOutputBytes: VERSION_OUTPUT_BYTES,
  });
  const version = parseSemver(`${out.stdout}\n${out.stderr}`);
  // The daemon's version picks its config format and the compatibility rules: it must be known.
  if (out.exitCode !== 0 || !version)
    throw new RbError(
      'STACK_DAEMON_VERSION',
      out.timedOut
        ? `${path} --version printed no version within ${(3 * VERSION_TIMEOUT_MS) / 1000} s (killed)`
        : `cannot read a version from "${`${out.stdout}${out.stderr}`.trim().split('\n')[0]?.slice(0, 200) ?? ''}" (${path} --version, exit ${out.exitCode})`,
      `${flag} must name a working ${name} that prints its version (x.y.z)`,
      { exitCode: 2 },
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

/**
 * An OCI runtime's version from its `--version` (see `interpretOciVersion`): `unknown` with the
 * raw output when it answers without one, an error when it cannot run, fails or hangs.
 */
export async function ociVersion(
  kind: string,
  binary: string,
  timeoutMs = VERSION_TIMEOUT_MS,
): Promise<{ version: string; known: boolean; output: string } | { error: string }> {
  const problem = await notRunnable(binary);
  if (problem) return { error: `${binary} ${problem}` };
  const out = await exec(binary, ['--version'], {
    allowFailure: true,
    timeoutMs,
    maxOutputBytes: VERSION_OUTPUT_BYTES,
  });
  const v = interpretOciVersion(kind, binary, {
    exitCode: out.exitCode,
    output: `${out.stdout}${out.stderr}`.trim(),
    timedOut: out.timedOut === true,
    timeoutMs,
  });
  // runsc built with `go install` says VERSION_MISSING; the module version it embeds is the real one.
  if ('version' in v && kind === 'runsc' && v.version === 'VERSION_MISSING') {
    const module = goModuleVersion(await readFile(binary), 'gvisor.dev/gvisor');
    if (module) return { ...v, version: module };
  }
  return v;
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
  for (const [i, e] of extra.entries()) {
    const problem = await notRunnable(e.binary);
    if (problem) {
      throw new RbError(
        'CONFIG_INVALID',
        `stack.extraHandlers[${i}].binary: ${e.binary} (handler "${e.name}") ${problem}`,
        'give the absolute path of an executable OCI runtime binary, or remove the entry',
      );
    }
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
      skipped.push({ name: c.name, binary: c.binary, reason: v.error });
      continue;
    }
    const why = driver.incompatibility(daemonVersion, c.kind, v.known ? v.version : null);
    if (why) skipped.push({ name: c.name, binary: c.binary, reason: why });
    else handlers.push({ ...c, version: v.version, versionOutput: v.output });
  }
  return { handlers, skipped };
}
