// The `path` source: binaries already on the machine; nothing is copied, versions are read from them.
import { access, constants } from 'node:fs/promises';
import { RbError } from '../errors.ts';
import { SYSTEM_BIN_DIRS, which } from '../util/path-search.ts';
import type { ComponentInfo } from './components.ts';

/** Absolute paths of a component's executables: the spec's own path for the main one, else found. */
export async function locateBinaries(
  component: ComponentInfo,
  explicitPath: string | null,
  pathEnv?: string,
): Promise<Record<string, string>> {
  const [main, ...others] = component.binaries;
  const out: Record<string, string> = {};
  const mainPath = explicitPath ?? (await which(main!.name, [], pathEnv));
  if (!mainPath) {
    throw new RbError(
      'INSTALL_NOT_FOUND',
      `${component.name}: no ${main!.name} on PATH or in ${SYSTEM_BIN_DIRS.join(', ')}`,
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
    const found = await which(b.name, [besideDir], pathEnv);
    if (found) out[b.name] = found;
  }
  return out;
}
