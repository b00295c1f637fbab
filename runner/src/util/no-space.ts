// A full filesystem, named as such: ENOSPC (no blocks or inodes left) and EDQUOT (the writer's
// quota spent) both mean "make room and write again", never a bug to report.
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

export function isNoSpace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The bytes an unprivileged writer may still use on the filesystem holding `path` (or its nearest existing parent). */
export async function freeBytes(path: string): Promise<number | null> {
  for (let at = path; ; at = dirname(at)) {
    const stats = await statfs(at).catch(() => null);
    if (stats) return stats.bavail * stats.bsize;
    if (dirname(at) === at) return null;
  }
}

/** "needs N bytes, M bytes are free": what a message about a full disk must say. */
export async function spaceShortfall(path: string, neededBytes: number): Promise<string> {
  const free = await freeBytes(path);
  return `needs ${neededBytes} bytes, ${free === null ? 'an unknown number of' : free} bytes are free`;
}
