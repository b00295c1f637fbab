// The `path` source: binaries already on the machine; nothing is copied, versions are read from them.
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { RbError } from '../errors.ts';
import type { ComponentInfo } from './components.ts';

/** Directories searched besides PATH: sbin is often missing from a non-login PATH (runc lives there). */
const EXTRA_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The first executable `name` on PATH (then the usual system directories), or null. */
export async function findExecutable(
  name: string,
  pathEnv: string | undefined = process.env.PATH,
): Promise<string | null> {
  const dirs = [...(pathEnv ?? '').split(delimiter).filter((d) => d.startsWith('/')), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** Absolute paths of a component's executables: the spec's own path for the main one, else found. */
export async function locateBinaries(
  component: ComponentInfo,
  explicitPath: string | null,
  pathEnv?: string,
): Promise<Record<string, string>> {
  const [main, ...others] = component.binaries;
  const out: Record<string, string> = {};
  const mainPath = explicitPath ?? (await findExecutable(main!.name, pathEnv));
  if (!mainPath) {
    throw new RbError(
      'INSTALL_NOT_FOUND',
      `${component.name}: no ${main!.name} on PATH or in ${EXTRA_DIRS.join(', ')}`,
      `install it, or give its path: ${component.name}@/path/to/${main!.name}`,
    );
  }
  try {
    await access(mainPath, constants.X_OK);
  } catch {
    throw new RbError('INSTALL_NOT_FOUND', `${component.name}: ${mainPath} is not an executable file`);
  }
  out[main!.name] = mainPath;
  // Companions (shims, ctr) beside the main binary first, then on PATH; optional.
  const besideDir = mainPath.slice(0, mainPath.lastIndexOf('/'));
  for (const b of others) {
    const beside = join(besideDir, b.name);
    const found = await access(beside, constants.X_OK).then(
      () => beside,
      () => findExecutable(b.name, pathEnv),
    );
    if (found) out[b.name] = found;
  }
  return out;
}
