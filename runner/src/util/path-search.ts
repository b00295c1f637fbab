// The one PATH search of the runner: `install`'s path source and the stack, engines and benchmarks
// all find binaries here, so two commands on one host never resolve a name to different files.
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/**
 * Directories searched after PATH: sbin is often missing from a non-login PATH (runc lives there),
 * and a service's PATH may hold none of the usual system directories.
 */
export const SYSTEM_BIN_DIRS: readonly string[] = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
];

/** Whether `path` may be executed by this process. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first executable `name` in `extraDirs` (searched first: e.g. beside another binary), then
 * on PATH (its absolute entries: a relative one would depend on the working directory), then in
 * SYSTEM_BIN_DIRS; or null. A name with a slash is a path: itself when executable, else null.
 */
export async function which(
  name: string,
  extraDirs: readonly string[] = [],
  pathEnv: string | undefined = process.env.PATH,
): Promise<string | null> {
  if (name.includes('/')) return (await isExecutable(name)) ? name : null;
  const onPath = (pathEnv ?? '').split(delimiter).filter((d) => d.startsWith('/'));
  for (const dir of [...extraDirs, ...onPath, ...SYSTEM_BIN_DIRS]) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}
