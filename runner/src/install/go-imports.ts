// Does a package of a Go module need a module its go.mod replaces with a local directory? The
// module proxy's zip of a module leaves its nested modules out (nerdctl's ./mod/tigron, runc's
// ./internal/third_party/selinux); a build of a package that never imports one needs none of it
// (nerdctl 2.0.4's ./cmd/nerdctl), while one that does (nerdctl 2.1.x, whose cmd/nerdctl/helpers
// imports pkg/testutil, which imports tigron) builds only from a checkout.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A go.mod's local `replace <module> [v…] => ./dir` directives: the module and the directory. */
export function localReplacementModules(goMod: string): { module: string; dir: string }[] {
  return [...goMod.matchAll(/^\s*(?:replace\s+)?(\S+)(?:\s+v\S+)?\s+=>\s+(\.{1,2}\/\S*)\s*$/gm)].map((m) => ({
    module: m[1]!,
    dir: m[2]!,
  }));
}

/** The module path of a go.mod (`module github.com/x/y/v2`), or null. */
export function modulePath(goMod: string): string | null {
  return /^module\s+(\S+)\s*$/m.exec(goMod)?.[1] ?? null;
}

/** The import paths of a Go source file: single imports and import blocks, aliases dropped. */
export function goImports(source: string): string[] {
  // Comments out first (a commented-out import is none); strings keep their slashes.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of code.matchAll(/^import\s*(?:[\w.]+\s+)?"([^"]+)"/gm)) out.push(m[1]!);
  for (const m of code.matchAll(/^import\s*\(([\s\S]*?)\)/gm))
    for (const q of m[1]!.matchAll(/^\s*(?:[\w.]+\s+)?"([^"]+)"/gm)) out.push(q[1]!);
  return out;
}

export interface SourceTree {
  /** The names in a directory ([] when it does not exist). */
  list(dir: string): Promise<string[]>;
  read(file: string): Promise<string>;
}

export const realSourceTree: SourceTree = {
  list: (dir) => readdir(dir).catch(() => [] as string[]),
  read: (file) => readFile(file, 'utf8'),
};

/**
 * Whether `pkg` (`./cmd/nerdctl`) of the module at `root` imports, directly or through the
 * module's own packages, a package of module `needed`. Every non-test file counts whatever its
 * build constraints: a yes may be too cautious, a no is certain.
 */
export async function packageNeedsModule(
  tree: SourceTree,
  root: string,
  module: string,
  pkg: string,
  needed: string,
): Promise<boolean> {
  const seen = new Set<string>();
  const queue = [pkg.replace(/^\.\/?/, '')];
  while (queue.length > 0) {
    const rel = queue.shift()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const dir = join(root, rel);
    for (const name of await tree.list(dir)) {
      if (!name.endsWith('.go') || name.endsWith('_test.go')) continue;
      for (const path of goImports(await tree.read(join(dir, name)))) {
        if (path === needed || path.startsWith(`${needed}/`)) return true;
        if (path === module || path.startsWith(`${module}/`)) queue.push(path.slice(module.length + 1));
      }
    }
  }
  return false;
}
