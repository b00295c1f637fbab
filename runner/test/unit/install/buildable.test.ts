// What a sweep's dry run can tell about buildability before building: the recipe's refusals
// (pure), and a go.mod's local replacements read from the module proxy (here a go.mod on disk
// handed back by a stand-in for `go list -m -json`, which only the argument building is tested on).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { proxyLocalReplacements, recipeRefusal } from '../../../src/install/available.ts';
import type { InstallEnv } from '../../../src/install/env.ts';

describe('recipeRefusal', () => {
  test('runc 1.5 and newer need libpathrs: refused for the build sources only', () => {
    expect(recipeRefusal('runc', '1.5.0', 'go')).toMatch(/libpathrs/);
    expect(recipeRefusal('runc', '1.6.0-rc.1', 'git')).toMatch(/libpathrs/);
    expect(recipeRefusal('runc', '1.5.0', 'release')).toBeNull();
    expect(recipeRefusal('runc', '1.4.3', 'go')).toBeNull();
    expect(recipeRefusal('runc', '1.1.5', 'go')).toBeNull();
  });
  test("a checkout's commit or branch is not refused up front: its tree says how it builds", () => {
    // A sweep of commits (confirming a bisection) once died here of an internal error.
    expect(recipeRefusal('runc', '2655e7c5a859', 'git')).toBeNull();
    expect(recipeRefusal('runc', 'my-branch', 'git')).toBeNull();
    expect(recipeRefusal('runc', 'v1.5.0', 'git')).toMatch(/libpathrs/);
  });
  test('a component without a recipe cannot be built at all; crun only from its own sources', () => {
    expect(recipeRefusal('youki', '0.5.0', 'go')).toMatch(/buildable from source: .*crun/);
    expect(recipeRefusal('crun', '1.19', 'go')).toMatch(/--source debian-source or --source git/);
  });
});

describe('proxyLocalReplacements', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-gomod-'));
  const envWith = (goMod: string | null, calls: string[][] = []): InstallEnv => {
    const path = join(dir, `go-${calls.length}-${Math.random()}.mod`);
    if (goMod !== null) writeFileSync(path, goMod);
    return {
      run: async (command: string, args: readonly string[]) => {
        calls.push([command, ...args]);
        if (goMod === null) throw new Error('proxy unreachable');
        return { stdout: JSON.stringify({ Path: 'x', GoMod: path }), stderr: '', exitCode: 0 };
      },
      fetch: () => Promise.reject(new Error('no fetch')),
      log: () => undefined,
      hostGlibc: null,
      arch: 'x64',
      cli: [],
    } as unknown as InstallEnv;
  };

  test('runc 1.2.8: the selinux replacement, asked of the right module at v<version>', async () => {
    const calls: string[][] = [];
    const goMod =
      'module github.com/opencontainers/runc\n\ngo 1.22\n\nreplace github.com/opencontainers/selinux => ./internal/third_party/selinux\n';
    expect(await proxyLocalReplacements(envWith(goMod, calls), 'runc', '1.2.8')).toEqual([
      './internal/third_party/selinux',
    ]);
    expect(calls).toEqual([['go', 'list', '-m', '-json', 'github.com/opencontainers/runc@v1.2.8']]);
  });

  test('a go.mod without local replacements: none', async () => {
    expect(
      await proxyLocalReplacements(
        envWith('module github.com/opencontainers/runc\n\ngo 1.22\n'),
        'runc',
        '1.2.6',
      ),
    ).toEqual([]);
  });

  test('the proxy cannot be asked: unknown (null), not "buildable"', async () => {
    expect(await proxyLocalReplacements(envWith(null), 'runc', '1.2.8')).toBeNull();
  });
});
