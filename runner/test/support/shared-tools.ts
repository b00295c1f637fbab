// The builds every developer and CI share (CRI-O, crictl, gVisor, youki: not in any registry we
// reach), and a crun new enough for CRI-O and containerd ≥ 1.7, installed once per machine.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CLI } from './cli.ts';

const run = promisify(execFile);

/** `$RB_SHARED_TOOLS`, else `<repo>/../shared/tools` (where CI and every checkout find them). */
export function sharedToolsDir(): string {
  return (
    process.env.RB_SHARED_TOOLS ?? resolve(import.meta.dirname, '..', '..', '..', '..', 'shared', 'tools')
  );
}

/** Absolute path of a shared executable, e.g. `sharedTool('gvisor/runsc')`, or null when absent. */
export function sharedTool(relativePath: string): string | null {
  const path = join(sharedToolsDir(), relativePath);
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return null;
  }
}

/** Where `ensureModernCrun` installs: the installer's default prefix, shared by every test run. */
export const MODERN_CRUN_PREFIX = '/opt/runtime-bench';
/**
 * Debian trixie's crun: a stable suite, so the version stays available (sid's 1.28 would vanish
 * at its next upload), and one suite's package lists to fetch instead of three.
 */
export const MODERN_CRUN_VERSION = '1.21';
const MODERN_CRUN_SUITE = 'trixie';

let modernCrun: Promise<string> | undefined;

/**
 * A crun ≥ 1.9 (Debian bookworm's 1.8.1 refuses CRI-O's OCI spec 1.3.0 and containerd ≥ 1.7):
 * `runtime-bench install --source distro --suites trixie crun@1.21` into /opt/runtime-bench, once
 * per machine (its glibc needs are met by trixie's own libc in a private directory).
 * Later calls (in this process or any other) find the installed binary and return at once;
 * concurrent first calls from several processes are serialised by flock(1), and the installer
 * itself reuses a version directory that is already there. Needs root and the Debian archive
 * (the private apt of the distro source); the install takes about a minute on a fresh machine.
 * Returns the binary's absolute path.
 */
export function ensureModernCrun(): Promise<string> {
  modernCrun ??= installModernCrun().catch((error: unknown) => {
    modernCrun = undefined; // let a later call try again
    throw error;
  });
  return modernCrun;
}

async function reportsVersion(binary: string, version: string): Promise<boolean> {
  try {
    await access(binary, constants.X_OK);
    const { stdout } = await run(binary, ['--version'], { timeout: 30_000 });
    return stdout.startsWith(`crun version ${version}\n`);
  } catch {
    return false;
  }
}

async function installModernCrun(): Promise<string> {
  const binary = join(MODERN_CRUN_PREFIX, 'crun', MODERN_CRUN_VERSION, 'bin', 'crun');
  if (await reportsVersion(binary, MODERN_CRUN_VERSION)) return binary;
  // Its own state directory: the record and the stack.yaml beside it must not be the default
  // install's (<prefix>/state/install.json, stack.yaml) that a user's install may own. Both are
  // kept, as is the crun, for later test runs; `runtime-bench uninstall --state <it>` removes them.
  const stateDir = join(MODERN_CRUN_PREFIX, 'state', `test-crun-${MODERN_CRUN_VERSION}`);
  await mkdir(stateDir, { recursive: true });
  const record = join(stateDir, 'install.json');
  // Under the lock, look again: another process may have installed it while this one waited.
  const script = `"$1" --version 2>/dev/null | grep -qx "crun version $2" || exec "$3" "$4" install --source distro --suites "$7" --prefix "$5" --state "$6" "crun@$2"`;
  await run(
    'flock',
    [
      join(stateDir, 'lock'),
      'sh',
      '-c',
      script,
      'sh',
      binary,
      MODERN_CRUN_VERSION,
      process.execPath,
      CLI,
      MODERN_CRUN_PREFIX,
      record,
      MODERN_CRUN_SUITE,
    ],
    { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`installing crun ${MODERN_CRUN_VERSION} failed: ${error.stderr ?? error.message}`);
  });
  if (!(await reportsVersion(binary, MODERN_CRUN_VERSION)))
    throw new Error(`${binary} does not report crun version ${MODERN_CRUN_VERSION} after install`);
  return binary;
}
