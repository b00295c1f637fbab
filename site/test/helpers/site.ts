// A built site served and a browser to drive it: what each browser test starts from.
import type { Browser } from 'playwright-core';
import { buildSite } from './build.ts';
import { launchChromium } from './browser.ts';
import { serveStatic, type StaticServer } from './serve.ts';

export interface ServedSite {
  server: StaticServer;
  browser: Browser;
  close(): Promise<void>;
}

/** Builds the site from `dataDir` into `outDir` (a failed build throws with its output's tail). */
export async function serveBuiltSite(dataDir: string, outDir: string): Promise<ServedSite> {
  const build = await buildSite(dataDir, outDir);
  if (build.code !== 0) throw new Error(`astro build failed:\n${build.output.slice(-3000)}`);
  const server = await serveStatic(outDir);
  const browser = await launchChromium();
  return {
    server,
    browser,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}
