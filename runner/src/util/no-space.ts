// A full filesystem, named as such: ENOSPC (no blocks or inodes left) and EDQUOT (the writer's
// quota spent) both mean "make room and write again", never a bug to report.
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

export function isNoSpace(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The bytes an unprivileged writer may still use on the filesystem holding `path` (or its nearest existing parent). */
export function freeBytes(path: string): number | null {
  for (let at = path; ; at = dirname(at)) {
    try {
      const stats = statfsSync(at);
      return stats.bavail * stats.bsize;
    } catch {
      if (dirname(at) === at) return null;
    }
  }
}

/** "needs N bytes, M bytes are free": what a message about a full disk must say. */
export function spaceShortfall(path: string, neededBytes: number): string {
  const free = freeBytes(path);
  return `needs ${neededBytes} bytes, ${free === null ? 'an unknown number of' : free} bytes are free`;
}
