// Removal of cgroup directories a runtime left behind, found by exact name in every mounted
// cgroup hierarchy (each v1 controller and the unified one).
import { readdir, readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cgroupHierarchies } from '../host/parse.ts';

/** Mount points of every cgroup and cgroup2 filesystem, from mountinfo text. */
export function cgroupMounts(mountinfo: string): string[] {
  return [...new Set(cgroupHierarchies(mountinfo).map((h) => h.mount))];
}

async function subtree(dir: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries)
    if (e.isDirectory()) {
      out.push(join(dir, e.name));
      await subtree(join(dir, e.name), out);
    }
}

async function findNamed(
  dir: string,
  names: ReadonlySet<string>,
  depth: number,
  out: string[],
): Promise<void> {
  if (depth < 0) return;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const path = join(dir, e.name);
    await findNamed(path, names, depth - 1, out);
    if (names.has(e.name)) out.push(path);
  }
}

/**
 * Removes the (empty) cgroup directories with these exact names, children before parents, up to
 * `depth` levels below each hierarchy's root. Returns the ones that could not be removed.
 */
export async function removeCgroupsNamed(
  names: readonly string[],
  depth = 4,
  opts: { withChildren?: boolean } = {},
): Promise<string[]> {
  if (names.length === 0) return [];
  const wanted = new Set(names);
  const found: string[] = [];
  for (const mount of cgroupMounts(await readFile('/proc/self/mountinfo', 'utf8')))
    await findNamed(mount, wanted, depth, found);
  // withChildren: the named cgroups are ours entirely (an engine's cgroup parent and what the
  // engine made below it, e.g. Podman's conmon cgroup), so their subtrees go too.
  if (opts.withChildren) for (const root of [...found]) await subtree(root, found);
  const problems: string[] = [];
  // Deepest first: a pod's cgroup holds its containers' cgroups.
  for (const path of found.sort((a, b) => b.split('/').length - a.split('/').length)) {
    try {
      await rmdir(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') problems.push(`cgroup ${path}: ${code ?? String(error)}`);
    }
  }
  return problems;
}
