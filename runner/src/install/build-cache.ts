// The build cache's lookups shared by the Go and the crun builds: the record of an entry that is
// there and still matches its seal, and the Debian packages a build needs (installed or refused).
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ComponentBuildSchema, type ComponentBuild } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { discardEntry, usableEntry } from './cache-entry.ts';
import type { InstallEnv } from './env.ts';

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** Installed versions of the Debian packages a build needs; a missing one is a usage error. */
export async function debianDeps(env: InstallEnv, packages: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const p of packages) {
    const r = await env.run('dpkg-query', ['-W', '-f', '${Version}', p], { allowFailure: true });
    if (r.exitCode !== 0 || r.stdout.trim() === '') missing.push(p);
    else out[p] = r.stdout.trim();
  }
  if (missing.length > 0)
    throw new RbError(
      'INSTALL_BUILD_DEPS',
      `building needs the Debian package${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      `apt-get install ${missing.join(' ')}`,
    );
  return out;
}

export async function readCached(dir: string): Promise<ComponentBuild | null> {
  try {
    return ComponentBuildSchema.parse(JSON.parse(await readFile(join(dir, 'BUILD.json'), 'utf8')));
  } catch {
    return null;
  }
}

/**
 * The record of the cache entry at `dir` when it is there and intact; null otherwise, and an entry
 * that fails its seal (or whose record this version cannot read) is removed, so it is built again.
 */
export async function cachedBuild(
  dir: string,
  prefix: string,
  log: (line: string) => void,
): Promise<ComponentBuild | null> {
  if (!(await exists(dir)) || !(await usableEntry(dir, prefix, log))) return null;
  const record = await readCached(dir);
  if (record === null) await discardEntry(dir, prefix, 'its BUILD.json is not a build record', log);
  return record;
}
