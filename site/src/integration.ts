// Publishes the result files next to the pages, unchanged, at /data/runs/…, so that every number
// on the site links to the JSON it came from. A copy after the build (rather than one endpoint per
// file) keeps a 10 000-file build fast; the dev server serves the same paths from the data dir.
import { createReadStream } from 'node:fs';
import { cp, link, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { prepareSiteData, type LoadSettings } from './lib/site-data.ts';

export function resultFiles(dataDir: string, load: LoadSettings): AstroIntegration {
  const runs = join(dataDir, 'runs');
  return {
    name: 'runtime-bench:result-files',
    hooks: {
      // Loading ten thousand files takes the build's worker threads a while: start it now, so
      // that it overlaps with bundling; the pages await the same promise.
      'astro:build:start': () => {
        prepareSiteData(dataDir, load).catch(() => {
          // reported where the pages await it, with the build's own error output
        });
      },
      'astro:server:setup': ({ server }) => {
        server.middlewares.use((req, res, next) => {
          const path = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
          const m = /\/data\/(runs\/.+\.json)$/.exec(path);
          const file = m ? normalize(join(dataDir, m[1]!)) : '';
          if (!m || !file.startsWith(runs)) return next();
          stat(file).then(
            () => {
              res.setHeader('content-type', 'application/json');
              createReadStream(file).pipe(res);
            },
            () => next(),
          );
        });
      },
      'astro:build:done': async ({ dir }) => {
        const exists = await stat(runs).then(
          (s) => s.isDirectory(),
          () => false,
        );
        if (exists) await publish(runs, join(fileURLToPath(dir), 'data', 'runs'));
      },
    },
  };
}

/**
 * Puts the result files into the output: hard links when source and output share a file system
 * (ten thousand files of 50 KB are then free), a copy otherwise. The files are immutable by
 * contract, so a link can never show a different content than the file it came from.
 */
async function publish(from: string, to: string): Promise<void> {
  const files = (await readdir(from, { recursive: true })).map(String).filter((f) => f.endsWith('.json'));
  const dirs = new Set(files.map((f) => dirname(join(to, f))));
  await Promise.all([...dirs].map((d) => mkdir(d, { recursive: true })));
  try {
    // Small batches: enough parallelism for the file system, no burst of open handles.
    for (let i = 0; i < files.length; i += 64) {
      await Promise.all(files.slice(i, i + 64).map((f) => link(join(from, f), join(to, f))));
    }
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'EXDEV' &&
      (error as NodeJS.ErrnoException).code !== 'EPERM'
    )
      throw error;
    await cp(from, to, { recursive: true, force: true });
  }
}
