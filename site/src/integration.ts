// Publishes the result files next to the pages, unchanged, at /data/runs/…, so that every number
// on the site links to the JSON it came from. A copy after the build (rather than one endpoint per
// file) keeps a 10 000-file build fast; the dev server serves the same paths from the data dir.
import { createReadStream } from 'node:fs';
import { cp, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';

export function resultFiles(dataDir: string): AstroIntegration {
  const runs = join(dataDir, 'runs');
  return {
    name: 'runtime-bench:result-files',
    hooks: {
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
        if (exists) await cp(runs, join(fileURLToPath(dir), 'data', 'runs'), { recursive: true });
      },
    },
  };
}
