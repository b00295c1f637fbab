// Scale benchmark of the site: builds it from N synthetic result files (default 10 000) and
// prints the build time, the number of files and pages, and the largest gzip JavaScript of any
// page. Fails (exit code 1) when the build exceeds 60 s or a page ships more than 150 KB of JS.
// The synthetic files live in a temporary directory and are removed afterwards: they are never
// data, and the pages built from them label every run "synthetic".
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSite } from '../test/helpers/build.ts';
import { measurePages } from './measure.ts';
import { writeSyntheticRuns } from './synthetic.ts';

const LIMIT_SECONDS = 60;
const LIMIT_JS_BYTES = 150 * 1024;

const count = Number(process.argv[2] ?? 10_000);
if (!Number.isInteger(count) || count < 1) {
  console.error(`usage: node bench/scale.ts [number of result files, default 10000]; got ${process.argv[2]}`);
  process.exit(2);
}
const work = await mkdtemp(join(tmpdir(), 'rb-site-scale-'));
try {
  const dataDir = join(work, 'data');
  const outDir = join(work, 'dist');
  const genStart = performance.now();
  await writeSyntheticRuns(dataDir, count);
  const genSeconds = (performance.now() - genStart) / 1000;
  const build = await buildSite(dataDir, outDir);
  if (build.code !== 0) {
    console.error(build.output.slice(-4000));
    throw new Error(`astro build exited with code ${build.code}`);
  }
  const pages = measurePages(outDir);
  const worst = pages.reduce((a, b) => (b.gzipBytes > a.gzipBytes ? b : a));
  const rows: [string, string, string][] = [
    ['result files', String(count), ''],
    ['generation (not timed as build)', `${genSeconds.toFixed(1)} s`, ''],
    ['build time (astro build)', `${build.seconds.toFixed(1)} s`, `≤ ${LIMIT_SECONDS} s`],
    ['pages built', String(pages.length), ''],
    [
      'max gzip JS per page',
      `${(worst.gzipBytes / 1024).toFixed(1)} KB (${worst.page})`,
      `≤ ${LIMIT_JS_BYTES / 1024} KB`,
    ],
    ['pages without JS', String(pages.filter((p) => p.gzipBytes === 0).length), ''],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log(`${'figure'.padEnd(w0)}  ${'value'.padEnd(w1)}  limit`);
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
  const ok = build.seconds <= LIMIT_SECONDS && worst.gzipBytes <= LIMIT_JS_BYTES;
  console.log(ok ? 'within limits' : 'LIMIT EXCEEDED');
  if (!ok) process.exitCode = 1;
} finally {
  await rm(work, { recursive: true, force: true });
}
