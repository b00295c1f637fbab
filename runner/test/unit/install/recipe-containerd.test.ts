// The containerd recipe against its Makefiles. Expected commands transcribed by hand from the
// Makefile and Makefile.linux of the module zips v1.7.35, v2.0.14 and v2.4.2 (`make release`:
// GO_BUILDTAGS urfave_cli_no_docs, -buildmode=pie, EXTRA_LDFLAGS -s -w; the shim with
// SHIM_CGO_ENABLED=0 and -extldflags "-static", plus no_grpc from 2.0 on).
import { describe, expect, test } from 'vitest';
import {
  GO_RECIPES,
  builtExecutables,
  goInvocation,
  moduleFor,
  recipeFor,
  recipeModules,
  stepCommand,
} from '../../../src/install/build-recipe.ts';

const containerd = GO_RECIPES.containerd!;
const REV = '1d3ac5d5ea5d6d3a4f2d8c3b0e1c3e6f7a8b9c0d';

describe('containerd modules', () => {
  test('1.x from github.com/containerd/containerd, 2.x from …/v2', () => {
    expect(moduleFor(containerd, '1.7.35')).toBe('github.com/containerd/containerd');
    expect(moduleFor(containerd, '2.0.14')).toBe('github.com/containerd/containerd/v2');
    expect(moduleFor(containerd, 'v2.4.2')).toBe('github.com/containerd/containerd/v2');
    // A commit names no major: the newest module.
    expect(moduleFor(containerd, '0b9fa21be2bc')).toBe('github.com/containerd/containerd/v2');
    expect(recipeModules(containerd)).toEqual([
      'github.com/containerd/containerd',
      'github.com/containerd/containerd/v2',
    ]);
    expect(recipeModules(GO_RECIPES.runc!)).toEqual(['github.com/opencontainers/runc']);
  });
});

describe('containerd is built as `make release` builds it', () => {
  test('2.0.14: containerd and ctr PIE with cgo, the shim static without cgo and with no_grpc', () => {
    const inv = goInvocation(recipeFor(containerd, '2.0.14').flags, {
      version: '2.0.14',
      commit: 'unused',
      toolchain: 'go1.25.14',
      tag: 'v2.0.14',
      revision: REV,
      module: 'github.com/containerd/containerd/v2',
    });
    const stamps = `-X github.com/containerd/containerd/v2/version.Version=v2.0.14 -X github.com/containerd/containerd/v2/version.Revision=${REV} -X github.com/containerd/containerd/v2/version.Package=github.com/containerd/containerd/v2`;
    expect(inv.steps.map((a, i) => stepCommand(a, inv.stepEnv[i]!))).toEqual([
      `go build -trimpath -buildmode=pie -tags urfave_cli_no_docs -ldflags ${stamps} -s -w -o containerd ./cmd/containerd`,
      `go build -trimpath -buildmode=pie -tags urfave_cli_no_docs -ldflags ${stamps} -s -w -o ctr ./cmd/ctr`,
      `CGO_ENABLED=0 go build -trimpath -tags urfave_cli_no_docs no_grpc -ldflags ${stamps} -extldflags -static -s -w -o containerd-shim-runc-v2 ./cmd/containerd-shim-runc-v2`,
    ]);
    expect(inv.env).toEqual({ CGO_ENABLED: '1', GOTOOLCHAIN: 'go1.25.14', GOFLAGS: '-mod=mod' });
    expect(inv.stamps).toEqual({
      'github.com/containerd/containerd/v2/version.Version': 'v2.0.14',
      'github.com/containerd/containerd/v2/version.Revision': REV,
      'github.com/containerd/containerd/v2/version.Package': 'github.com/containerd/containerd/v2',
    });
  });
  test('1.7.35: v1 package paths, the shim without no_grpc', () => {
    const r = recipeFor(containerd, '1.7.35');
    expect(r.rules).toEqual([]);
    const inv = goInvocation(r.flags, {
      version: '1.7.35',
      commit: 'unused',
      toolchain: 'go1.25.14',
      tag: 'v1.7.35',
      revision: '',
      module: 'github.com/containerd/containerd',
    });
    expect(inv.steps[2]).toEqual([
      'build',
      '-trimpath',
      '-tags',
      'urfave_cli_no_docs',
      '-ldflags',
      '-X github.com/containerd/containerd/version.Version=v1.7.35 -X github.com/containerd/containerd/version.Revision= -X github.com/containerd/containerd/version.Package=github.com/containerd/containerd -extldflags -static -s -w',
      '-o',
      'containerd-shim-runc-v2',
      './cmd/containerd-shim-runc-v2',
    ]);
    expect(inv.stepEnv).toEqual([{}, {}, { CGO_ENABLED: '0' }]);
  });
  test('which executables the release ships static: the shim only', () => {
    expect(builtExecutables(recipeFor(containerd, '2.4.2').flags)).toEqual([
      { output: 'containerd', static: false },
      { output: 'ctr', static: false },
      { output: 'containerd-shim-runc-v2', static: true },
    ]);
    expect(builtExecutables(recipeFor(GO_RECIPES.runc!, '1.2.0').flags)).toEqual([
      { output: 'runc', static: true },
    ]);
  });
  test('every build says how it differs from the release, and what it cannot know', () => {
    const r = recipeFor(containerd, '2.4.2');
    expect(r.notes.join(' ')).toMatch(/glibc dynamically/);
    expect(containerd.noCommitNote).toMatch(/Revision is left empty/);
  });
});
