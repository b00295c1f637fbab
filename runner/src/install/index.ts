export * from './components.ts';
export * from './plan.ts';
export * from './env.ts';
export * from './install.ts';
export * from './uninstall.ts';
export * from './record.ts';
export { parseChecksumFile, digestFile } from './checksum.ts';
export { applyMirror, assetUrls, expandTemplate } from './release.ts';
