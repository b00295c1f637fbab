export * from './components.ts';
export * from './plan.ts';
export * from './env.ts';
export * from './install.ts';
export * from './dry-run.ts';
export * from './uninstall.ts';
export * from './record.ts';
export { parseChecksumFile, digestFile } from './checksum.ts';
export { applyMirror, assetUrls, expandTemplate, checkReleaseStep, planAssets } from './release.ts';
export {
  DEFAULT_GITHUB_API,
  GithubReleaseSchema,
  githubAssetLocation,
  parseRelease,
  releaseApiUrl,
  releaseAssetDigest,
} from './release-api.ts';
export * from './verification.ts';
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
