export * from './components.ts';
export * from './plan.ts';
export * from './env.ts';
export * from './install.ts';
export * from './uninstall.ts';
export * from './record.ts';
export { parseChecksumFile, digestFile } from './checksum.ts';
export { applyMirror, assetUrls, expandTemplate } from './release.ts';
export { buildComponent, type BuildRequest, type BuildResult } from './build.ts';
export { BUILD_SOURCES, GO_RECIPES, recipeFor, goInvocation, type BuildSource } from './build-recipe.ts';
export { compareSemver } from './semver.ts';
export {
  availableVersions,
  parseGoVersions,
  proxyLocalReplacements,
  recipeRefusal,
  selectRange,
} from './available.ts';
