// The reads behind a tree's own recipe: the files of an exported git tree that tree-recipe.ts
// turns into a recipe (Makefile, release script, the `//go:generate` lines of each package the
// Makefile generates), so the pure reading stays apart from the file system.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RbError } from '../errors.ts';
import type { GoRecipe } from './go-recipe.ts';
import { treeRecipe, type TreeRecipe } from './tree-recipe.ts';

/** `file.go: //go:generate …` for every directive in the Go files of one package directory. */
export async function generateDirectives(root: string, pkg: string): Promise<string[]> {
  const dir = join(root, pkg);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.go')).sort();
  const out: string[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    for (const line of text.split('\n'))
      if (line.startsWith('//go:generate ')) out.push(`${name}: ${line.trim()}`);
  }
  return out;
}

/**
 * The recipe of the tree at `root` (exported from `origin`, `<checkout>@<ref>`), whose VERSION says
 * `version`; `goarch` picks its arch branches.
 */
export async function readTreeRecipe(
  recipe: GoRecipe & { fromTree: { releaseScript: string } },
  origin: string,
  root: string,
  version: string,
  goarch: string,
): Promise<TreeRecipe> {
  const makefile = await readFile(join(root, 'Makefile'), 'utf8').catch(() => null);
  if (makefile === null)
    throw new RbError(
      'INSTALL_UNSUPPORTED',
      `${origin}: the tree has no Makefile to read its build from`,
      `name a ref of a ${recipe.component} tree that has one`,
    );
  const files = {
    version,
    makefile,
    releaseScript: await readFile(join(root, recipe.fromTree.releaseScript), 'utf8').catch(() => null),
  };
  // The packages come from the Makefile; their directives are read, then the recipe says them.
  const packages = treeRecipe(recipe, files, goarch, {}).flags.generate;
  const directives: Record<string, string[]> = {};
  for (const pkg of packages) directives[pkg] = await generateDirectives(root, pkg);
  return treeRecipe(recipe, files, goarch, directives);
}
