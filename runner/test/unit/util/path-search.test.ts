// The one PATH search, with real files in a temp dir: the order it looks in, and that `install`'s
// path source and the stack (the two searches there once were) resolve a name to the same file.
import { accessSync, constants } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { COMPONENTS } from '../../../src/install/components.ts';
import { locateBinaries } from '../../../src/install/path-source.ts';
import { findDaemonBinary } from '../../../src/stack/discover.ts';
import { SYSTEM_BIN_DIRS, which } from '../../../src/util/path-search.ts';

let work: string;
/** Three directories: `a` holds a containerd that is not executable, `b` and `c` runnable ones. */
let a: string, b: string, c: string;

async function tool(dir: string, name: string, mode: number): Promise<void> {
  await writeFile(
    join(dir, name),
    `#!/bin/sh\nprintf '%s\\n' "containerd github.com/containerd/containerd v1.7.24 abc"\n`,
  );
  await chmod(join(dir, name), mode);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-which-'));
  [a, b, c] = [join(work, 'a'), join(work, 'b'), join(work, 'c')];
  for (const d of [a, b, c]) await mkdir(d);
  await tool(a, 'containerd', 0o644);
  await tool(b, 'containerd', 0o755);
  await tool(c, 'containerd', 0o755);
  await tool(c, 'only-in-c', 0o755);
});
afterAll(() => rm(work, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

describe('which', () => {
  test('PATH in order, skipping what cannot be executed', async () => {
    expect(await which('containerd', [], `${a}:${b}:${c}`)).toBe(join(b, 'containerd'));
    expect(await which('containerd', [], `${c}:${b}`)).toBe(join(c, 'containerd'));
  });

  test('the extra directories come before PATH', async () => {
    expect(await which('containerd', [c], `${b}`)).toBe(join(c, 'containerd'));
    expect(await which('only-in-c', [c], '')).toBe(join(c, 'only-in-c'));
  });

  test('a relative PATH entry is not searched: the result must not depend on the working directory', async () => {
    const cwd = process.cwd();
    process.chdir(work);
    try {
      expect(await which('only-in-c', [], 'c')).toBeNull();
    } finally {
      process.chdir(cwd);
    }
  });

  test('a name with a slash is a path: itself when executable', async () => {
    expect(await which(join(b, 'containerd'), [], '')).toBe(join(b, 'containerd'));
    expect(await which(join(a, 'containerd'), [], '')).toBeNull();
  });

  test('the system directories after PATH, in their order', async () => {
    const expected = SYSTEM_BIN_DIRS.map((d) => join(d, 'sh')).find((p) => {
      try {
        accessSync(p, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    expect(expected).toBeDefined();
    expect(await which('sh', [], a)).toBe(expected);
    expect(await which('surely-no-such-tool-here', [], `${a}:${b}`)).toBeNull();
  });
});

test('install and the stack resolve a name on PATH to the same file', async () => {
  const path = `${a}:${b}:${c}`;
  vi.stubEnv('PATH', path);
  const installed = await locateBinaries(COMPONENTS.containerd, null, path);
  const stack = await findDaemonBinary('containerd', '--containerd', undefined, 'install containerd');
  expect(installed.containerd).toBe(join(b, 'containerd'));
  expect(stack.path).toBe(join(b, 'containerd'));
  expect(stack.version).toBe('1.7.24');
});
