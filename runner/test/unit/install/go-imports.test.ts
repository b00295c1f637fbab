// Which local replacements of a go.mod a package needs: go.mod and import parsing, and the walk
// through the module's own packages, on small source trees written out here (nerdctl's shape:
// cmd/nerdctl → cmd/nerdctl/helpers → pkg/testutil → mod/tigron in 2.1, not in 2.0.4).
import { describe, expect, test } from 'vitest';
import {
  goImports,
  localReplacementModules,
  modulePath,
  packageNeedsModule,
  type SourceTree,
} from '../../../src/install/go-imports.ts';

describe('local replacements of a go.mod', () => {
  test('the ./ directories with their module, in a replace block or on one line; module replacements are not', () => {
    const goMod = [
      'module github.com/opencontainers/runc',
      'replace github.com/opencontainers/selinux => ./internal/third_party/selinux',
      'replace golang.org/x/sys v0.1.0 => golang.org/x/sys v0.2.0',
      'replace (',
      '\tgithub.com/a/b v1.0.0 => ../b',
      '\tgithub.com/c/d => github.com/e/d v1.0.0',
      ')',
    ].join('\n');
    expect(localReplacementModules(goMod)).toEqual([
      { module: 'github.com/opencontainers/selinux', dir: './internal/third_party/selinux' },
      { module: 'github.com/a/b', dir: '../b' },
    ]);
    expect(localReplacementModules('module x\n\ngo 1.22\n')).toEqual([]);
    expect(modulePath(goMod)).toBe('github.com/opencontainers/runc');
    expect(modulePath('go 1.22\n')).toBeNull();
  });
});

test('goImports: single, aliased and blocked imports; commented ones are not', () => {
  const src = [
    'package helpers',
    '',
    'import "fmt"',
    'import tig "github.com/x/mod/tigron/tig"',
    '// import "github.com/not/this"',
    '/* import "github.com/nor/this" */',
    'import (',
    '\t"strings"',
    '\t_ "embed"',
    '\t. "github.com/x/dot"',
    '\t// "github.com/commented/out"',
    '\t"github.com/x/v2/pkg/testutil"',
    ')',
    'func f() { _ = "import \\"github.com/in/a/string\\"" }',
  ].join('\n');
  expect(goImports(src)).toEqual([
    'fmt',
    'github.com/x/mod/tigron/tig',
    'strings',
    'embed',
    'github.com/x/dot',
    'github.com/x/v2/pkg/testutil',
  ]);
});

describe('packageNeedsModule', () => {
  const tree = (files: Record<string, string>): SourceTree => ({
    list: async (dir) =>
      Object.keys(files)
        .filter((f) => f.startsWith(`${dir}/`) && !f.slice(dir.length + 1).includes('/'))
        .map((f) => f.slice(dir.length + 1)),
    read: async (file) => files[file]!,
  });
  const M = 'github.com/containerd/nerdctl/v2';
  const T = 'github.com/containerd/nerdctl/mod/tigron';
  const common = {
    '/m/cmd/nerdctl/main.go': `package main\nimport (\n\t"${M}/cmd/nerdctl/helpers"\n)\n`,
    '/m/cmd/nerdctl/main_test.go': `package main\nimport "${T}/test"\n`,
    '/m/cmd/nerdctl/helpers/testing_linux.go': `package helpers\nimport "${M}/pkg/testutil"\n`,
    '/m/pkg/testutil/nerdtest/test.go': `package nerdtest\nimport "${T}/test"\n`,
  };
  test('2.1: through pkg/testutil, which imports tigron', async () => {
    const t = tree({ ...common, '/m/pkg/testutil/compose.go': `package testutil\nimport "${T}/tig"\n` });
    expect(await packageNeedsModule(t, '/m', M, './cmd/nerdctl', T)).toBe(true);
  });
  test('2.0.4: pkg/testutil imports no tigron; nerdtest does, but nothing of cmd/nerdctl imports it; tests do not count', async () => {
    const t = tree({ ...common, '/m/pkg/testutil/compose.go': 'package testutil\nimport "os"\n' });
    expect(await packageNeedsModule(t, '/m', M, './cmd/nerdctl', T)).toBe(false);
    expect(await packageNeedsModule(t, '/m', M, './pkg/testutil/nerdtest', T)).toBe(true);
  });
  test('an import cycle through the module ends', async () => {
    const t = tree({
      '/m/a/a.go': `package a\nimport "${M}/b"\n`,
      '/m/b/b.go': `package b\nimport "${M}/a"\n`,
    });
    expect(await packageNeedsModule(t, '/m', M, './a', T)).toBe(false);
  });
});
