import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'astro/config';
import { resultFiles } from './src/integration.ts';
import { resolveDataDir } from './src/lib/load.ts';

// The site reads result files at build time from RB_DATA_DIR (a checkout of the data branch), or
// from the repository's data/ by default; the root of a data branch checkout works too. The resolved path is compiled into the build so that
// pages never look at the environment themselves.
const siteRoot = fileURLToPath(new URL('.', import.meta.url));
const dataDir = resolveDataDir(resolve(process.env.RB_DATA_DIR || resolve(siteRoot, '../data')));
// How the result files are loaded (src/lib/load-parallel.ts): by worker threads that Node runs
// from the source (type stripping), never bundled, and that keep the digest of each file content
// they have seen in a cache (RB_SITE_CACHE: a directory, or "off").
const load = {
  worker: resolve(siteRoot, 'src/lib/load-worker.ts'),
  computeWorker: resolve(siteRoot, 'src/lib/compute-worker.ts'),
  cacheDir:
    process.env.RB_SITE_CACHE === 'off'
      ? null
      : resolve(process.env.RB_SITE_CACHE || resolve(siteRoot, 'node_modules/.cache/runtime-bench-site')),
};

export default defineConfig({
  // GitHub Pages serves a project site below /<repository>/: the workflow sets both.
  site: process.env.RB_SITE_URL || undefined,
  base: process.env.RB_SITE_BASE || '/',
  output: 'static',
  trailingSlash: 'ignore',
  build: { format: 'directory' },
  devToolbar: { enabled: false },
  integrations: [resultFiles(dataDir, load)],
  vite: {
    define: { __RB_DATA_DIR__: JSON.stringify(dataDir), __RB_LOAD__: JSON.stringify(load) },
  },
});
