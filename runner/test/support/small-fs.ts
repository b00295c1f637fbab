// A small filesystem for the full-disk tests: a size-limited tmpfs mounted on a fresh directory,
// filled to leave exactly `leaveFree` bytes. Mounting needs root (the tests run as root); a failure
// to mount throws, so a full-disk test fails loudly instead of passing untested.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFs {
  dir: string;
  /** Bytes a non-root writer may still use, as df reports them. */
  available(): number;
  dispose(): void;
}

export function mountSmallFs(sizeBytes: number, leaveFree: number): SmallFs {
  const dir = mkdtempSync(join(tmpdir(), 'rb-smallfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot mount a ${sizeBytes}-byte tmpfs on ${dir} (the full-disk tests need root)`, {
      cause: error,
    });
  }
  const available = (): number =>
    Number(execFileSync('df', ['-B1', '--output=avail', dir], { encoding: 'utf8' }).split('\n')[1]);
  writeFileSync(join(dir, 'filler'), Buffer.alloc(available() - leaveFree));
  return {
    dir,
    available,
    dispose() {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
