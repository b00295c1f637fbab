// Scale benchmark of the site: builds it from N synthetic result files (default 10 000) as heavy
// as real nightly files (every benchmark family of the registry, ~200 KB each) and prints the build
// time, the number of files and pages, and the largest gzip HTML and JavaScript of any page, with
// the load average it ran under. Two real builds: a cold one (empty digest cache: every file is
// read, parsed and validated) and a warm one (one more file, the nightly case: the cache of the
// previous build). Fails (exit code 1) when either build exceeds 60 s, a page ships more than
// 150 KB of gzip JS or 300 KB of gzip HTML.
// The synthetic files live in a temporary directory and are removed afterwards: they are never
// data, and the pages built from them label every run "synthetic".
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSite } from '../test/helpers/build.ts';
import { measurePages } from './measure.ts';
import { syntheticRun, writeSyntheticRun, writeSyntheticRuns } from './synthetic.ts';

const LIMIT_SECONDS = 60;
const LIMIT_JS_BYTES = 150 * 1024;
const LIMIT_HTML_BYTES = 300 * 1024;

// `pnpm --filter @runtime-bench/site bench -- 2000` hands the script a literal "--" first.
const args = process.argv.slice(2).filter((a) => a !== '--');
const count = Number(args[0] ?? 10_000);
if (args.length > 1 || !Number.isInteger(count) || count < 1) {
  console.error(
    `usage: node bench/scale.ts [number of result files, default 10000]; got ${args.join(' ') || '(nothing)'}`,
  );
  process.exit(2);
}
const work = await mkdtemp(join(tmpdir(), 'rb-site-scale-'));
try {
  const dataDir = join(work, 'data');
  const outDir = join(work, 'dist');
  // A cache of its own, empty at the start: the first build is a cold one, whatever ran before.
  const env = { RB_SITE_CACHE: join(work, 'cache') };
  const genStart = performance.now();
  await writeSyntheticRuns(dataDir, count);
  const genSeconds = (performance.now() - genStart) / 1000;
  const paths = await writtenSizes(dataDir);
  const cold = await timedBuild(dataDir, outDir, env);
  const pages = measurePages(outDir);
  // The nightly case: the same history plus the night's new file, with the cache of the last build.
  await writeSyntheticRun(dataDir, count);
  const warm = await timedBuild(dataDir, outDir, env);
  const worst = pages.reduce((a, b) => (b.gzipBytes > a.gzipBytes ? b : a));
  const worstHtml = pages.reduce((a, b) => (b.htmlGzipBytes > a.htmlGzipBytes ? b : a));
  const load = (b: Timed) =>
    `load average (1 min) ${b.loadBefore.toFixed(1)} before / ${b.loadAfter.toFixed(1)} after on ${cpus().length} cores`;
  const rows: [string, string, string][] = [
    ['result files', String(count), ''],
    [
      'mean result file size',
      `${(paths.mean / 1024).toFixed(0)} KB (${paths.families} benchmark families)`,
      '',
    ],
    ['generation (not timed as build)', `${genSeconds.toFixed(1)} s`, ''],
    [
      'build time, cold (astro build, empty digest cache)',
      `${cold.seconds.toFixed(1)} s (${(count / cold.seconds).toFixed(0)} files/s)`,
      `≤ ${LIMIT_SECONDS} s`,
    ],
    ['  under', load(cold), ''],
    [
      `build time, warm (+1 new file, cache of the cold build)`,
      `${warm.seconds.toFixed(1)} s (${((count + 1) / warm.seconds).toFixed(0)} files/s)`,
      `≤ ${LIMIT_SECONDS} s`,
    ],
    ['  under', load(warm), ''],
    ['pages built', String(pages.length), ''],
    [
      'max gzip JS per page',
      `${(worst.gzipBytes / 1024).toFixed(1)} KB (${worst.page})`,
      `≤ ${LIMIT_JS_BYTES / 1024} KB`,
    ],
    [
      'max gzip HTML per page',
      `${(worstHtml.htmlGzipBytes / 1024).toFixed(1)} KB (${worstHtml.page})`,
      `≤ ${LIMIT_HTML_BYTES / 1024} KB`,
    ],
    ['pages without JS', String(pages.filter((p) => p.gzipBytes === 0).length), ''],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log(`${'figure'.padEnd(w0)}  ${'value'.padEnd(w1)}  limit`);
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
  const ok =
    cold.seconds <= LIMIT_SECONDS &&
    warm.seconds <= LIMIT_SECONDS &&
    worst.gzipBytes <= LIMIT_JS_BYTES &&
    worstHtml.htmlGzipBytes <= LIMIT_HTML_BYTES;
  console.log(ok ? 'within limits' : 'LIMIT EXCEEDED');
  if (!ok) process.exitCode = 1;
} finally {
  await rm(work, { recursive: true, force: true });
}

interface Timed {
  seconds: number;
  loadBefore: number;
  loadAfter: number;
}

/** One real `astro build`, failing the bench when the build fails. */
async function timedBuild(dataDir: string, outDir: string, env: Record<string, string>): Promise<Timed> {
  const loadBefore = loadavg()[0]!;
  const build = await buildSite(dataDir, outDir, env);
  const loadAfter = loadavg()[0]!;
  if (build.code !== 0) {
    console.error(build.output.slice(-4000));
    throw new Error(`astro build exited with code ${build.code}`);
  }
  return { seconds: build.seconds, loadBefore, loadAfter };
}

/** The mean size of the generated files (sampled) and how many families one holds. */
async function writtenSizes(dataDir: string): Promise<{ mean: number; families: number }> {
  const sample = Array.from({ length: Math.min(20, count) }, (_, i) => syntheticRun(i));
  const { serializeResult } = await import('@runtime-bench/runner');
  const sizes = sample.map((r) => serializeResult(r).length);
  await stat(dataDir);
  return {
    mean: sizes.reduce((a, b) => a + b, 0) / sizes.length,
    families: sample[0]!.benchmarks.length,
  };
}
