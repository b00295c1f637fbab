// Builds the real site (astro build in a child process) from the repository's data/ and drives it
// with Debian's chromium: every page type loads without console errors, charts draw, and tables
// show the values the result files hold. While data/ has no result files yet, the site is built
// from synthetic files in a temp dir instead, and the test says so loudly.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { median } from '@runtime-bench/runner/stats';
import { serializeResult } from '@runtime-bench/runner';
import { formatValue } from '@runtime-bench/runner/format';
import { buildIndex } from '../src/lib/site-index.ts';
import { benchmarkView } from '../src/lib/views/benchmark.ts';
import { overview } from '../src/lib/views/overview.ts';
import { runtimes } from '../src/lib/views/runtime.ts';
import { loadRuns, type LoadedRun } from '../src/lib/load.ts';
import { measurePages } from '../bench/measure.ts';
import { syntheticRun, writeSyntheticRuns } from '../bench/synthetic.ts';
import { buildSite, SITE_DIR } from './helpers/build.ts';
import { gate } from '../src/gate.ts';
import { regressionReport } from '../src/lib/regressions.ts';
import { serveStatic, type StaticServer } from './helpers/serve.ts';

const REPO_DATA = join(SITE_DIR, '..', 'data');
const SCREENSHOTS = join(SITE_DIR, 'test', 'screenshots');
const hasRealData =
  existsSync(join(REPO_DATA, 'runs')) &&
  readdirSync(join(REPO_DATA, 'runs'), { recursive: true }).some((f) => String(f).endsWith('.json'));

let work: string;
let dataDir: string;
let outDir: string;
let server: StaticServer;
let browser: Browser;
let runs: LoadedRun[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-test-'));
  outDir = join(work, 'dist');
  if (hasRealData) {
    dataDir = REPO_DATA;
  } else {
    console.warn('site test: data/ holds no result files yet; building from 24 SYNTHETIC files instead');
    dataDir = join(work, 'data');
    await writeSyntheticRuns(dataDir, 24);
  }
  runs = loadRuns(dataDir);
  const build = await buildSite(dataDir, outDir);
  if (build.code !== 0) throw new Error(`astro build failed:\n${build.output.slice(-3000)}`);
  server = await serveStatic(outDir);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
  await mkdir(SCREENSHOTS, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

interface Visit {
  page: Page;
  problems: string[];
}

/** Opens a page, collecting console errors, page errors and failed requests. */
async function visit(path: string, shot: string): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  const response = await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
  expect(response?.status(), path).toBe(200);
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(SCREENSHOTS, `${shot}.png`), fullPage: true });
  return { page, problems };
}

/** Every <rb-chart> drew: its element says so and its canvas has non-transparent pixels. */
async function expectChartsDrawn(page: Page, atLeast: number): Promise<void> {
  const counts = await page.$$eval('rb-chart', (charts) =>
    charts.map((c) => {
      const canvas = c.querySelector('canvas')!;
      const ctx = canvas.getContext('2d')!;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
      return {
        drawn: (c as HTMLElement).dataset.drawn === 'true',
        painted,
        w: canvas.width,
        h: canvas.height,
      };
    }),
  );
  expect(counts.length).toBeGreaterThanOrEqual(atLeast);
  for (const c of counts) {
    expect(c.drawn).toBe(true);
    expect(c.w * c.h).toBeGreaterThan(0);
    expect(c.painted).toBeGreaterThan(500);
  }
}

describe(
  `the site built from ${hasRealData ? 'the real data/' : 'SYNTHETIC data (data/ is empty)'}`,
  { timeout: 180_000 },
  () => {
    test('there is something to show', () => {
      expect(runs.length).toBeGreaterThan(0);
    });

    test('overview: every cell shows the median of the raw samples of its newest run', async () => {
      const { page, problems } = await visit('/', 'overview');
      const index = buildIndex(runs);
      const matrices = overview(index);
      expect(matrices.length).toBeGreaterThan(0);
      let checked = 0;
      for (const m of matrices) {
        for (const col of m.columns) {
          const run = runs.find((r) => r.run.runId === col.run.runId)!.run;
          const target = run.targets.find((t) => t.id === col.combo)!;
          for (const result of run.results.filter((r) => r.target === target.id)) {
            for (const metric of result.metrics) {
              if (metric.samples.length === 0) continue;
              const slug = index.metrics.find(
                (x) => x.benchmark === result.benchmark && x.metric === metric.name && x.unit === metric.unit,
              )!.slug;
              const cell = page.locator(
                `section[data-host="${m.host.id}"] td[data-combo="${col.combo}"][data-metric="${slug}"] .median`,
              );
              // Expected value straight from the file's raw samples, not from the page's own code path.
              await expect(cell.textContent()).resolves.toBe(
                formatValue(median(metric.samples), metric.unit),
              );
              checked++;
            }
          }
        }
        // exactly one best cell per row that has an ok value
        const bestCells = await page
          .locator(`section[data-host="${m.host.id}"] td[data-kind="best"]`)
          .count();
        const rowsWithBest = m.families
          .flatMap((f) => f.rows)
          .filter((r) => r.cells.some((c) => c.kind === 'value' && c.verdict.kind === 'best')).length;
        expect(bestCells).toBe(rowsWithBest);
      }
      expect(checked).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      await page.close();
    });

    test('overview: the CRI / OCI filter hides other columns and is reflected in the URL', async () => {
      const index = buildIndex(runs);
      const oci = index.ociNames[0]!;
      const { page, problems } = await visit(`/?oci=${encodeURIComponent(oci)}`, 'overview-filtered');
      await expect(page.locator('rb-filters select[name="oci"]').inputValue()).resolves.toBe(oci);
      const visibleOcis = await page.$$eval('table.matrix thead th[data-oci]', (ths) =>
        ths.filter((th) => !(th as HTMLElement).hidden).map((th) => (th as HTMLElement).dataset.oci),
      );
      expect(new Set(visibleOcis)).toEqual(new Set([oci]));
      await page.selectOption('rb-filters select[name="oci"]', '');
      expect(new URL(page.url()).searchParams.has('oci')).toBe(false);
      const all = await page.$$eval(
        'table.matrix thead th[data-oci]',
        (ths) => ths.filter((th) => !(th as HTMLElement).hidden).length,
      );
      expect(all).toBe(await page.locator('table.matrix thead th[data-oci]').count());
      expect(problems).toEqual([]);
      await page.close();
    });

    test('benchmark pages: charts drew and the distribution table matches the newest runs', async () => {
      const index = buildIndex(runs);
      for (const metric of index.metrics) {
        const view = benchmarkView(index, metric);
        const { page, problems } = await visit(
          `/benchmark/${metric.slug}/`,
          `benchmark-${metric.slug.replace(/\//g, '_')}`,
        );
        // versions charts + time + strip per host class with ok data
        await expectChartsDrawn(page, 1);
        for (const row of view.distributions) {
          if (row.samples.length === 0) continue;
          const run = runs.find((r) => r.run.runId === row.run.runId)!.run;
          const target = run.targets.find((t) => t.id === row.combo)!;
          const samples = run.results
            .find((r) => r.target === target.id && r.benchmark === metric.benchmark)!
            .metrics.find((m) => m.name === metric.metric)!.samples;
          const cell = page.locator(
            `section[data-host="${row.hostClassId}"] table.distribution tr[data-combo="${row.combo}"] .median`,
          );
          await expect(cell.textContent()).resolves.toBe(formatValue(median(samples)));
        }
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    test('runtime pages: every CRI and OCI runtime has a page listing its versions', async () => {
      const index = buildIndex(runs);
      for (const r of runtimes(index)) {
        const { page, problems } = await visit(
          `/runtime/${r.kind}/${r.name}/`,
          `runtime-${r.kind}-${r.name}`,
        );
        const versions = new Set(
          runs.flatMap(({ run }) =>
            run.targets
              .map((t) => (r.kind === 'cri' ? t.cri : t.oci))
              .filter((x) => x.name === r.name)
              .map((x) => x.version),
          ),
        );
        const shown = await page.$$eval('table.versions tbody tr td:first-child', (tds) =>
          tds.map((td) => td.textContent),
        );
        expect(new Set(shown)).toEqual(versions);
        const charts = await page.locator('rb-chart').count();
        if (charts > 0) await expectChartsDrawn(page, 1);
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    test('run page: host, versions, every metric with raw samples, and the JSON file', async () => {
      const { run, file } = runs.at(-1)!;
      const { page, problems } = await visit(`/run/${run.runId}/`, 'run');
      await expect(page.locator('table.host').textContent()).resolves.toContain(run.host.kernel);
      for (const c of run.components) {
        await expect(page.locator('table.components').textContent()).resolves.toContain(c.version);
      }
      for (const r of run.results) {
        for (const m of r.metrics) {
          const row = page.locator(
            `table.metrics[data-target="${r.target}"][data-benchmark="${r.benchmark}"] tr[data-metric="${m.name}"]`,
          );
          await expect(row.locator('.samples').textContent()).resolves.toBe(m.samples.join(', '));
          if (m.summary)
            await expect(row.locator('.median').textContent()).resolves.toBe(formatValue(m.summary.median));
        }
      }
      const href = await page.locator('a.json-link').getAttribute('href');
      expect(href).toBe(`/data/${file}`);
      const json = await page.evaluate(async (u) => (await fetch(u)).json(), href!);
      expect(json).toMatchObject({ runId: run.runId, startedAt: run.startedAt });
      expect(problems).toEqual([]);
      await page.close();
    });

    test('index pages and the regressions page load without errors', async () => {
      for (const [path, shot] of [
        ['/benchmarks/', 'benchmarks'],
        ['/runtimes/', 'runtimes'],
        ['/runs/', 'runs'],
        ['/regressions/', 'regressions'],
      ] as const) {
        const { page, problems } = await visit(path, shot);
        if (path === '/regressions/') {
          // The page replays the gate of runtime-bench check; the same replay here gives the counts.
          const report = regressionReport(runs, gate);
          if (report.state !== 'gate') throw new Error('the site is built with the gate');
          await expect(page.locator('main').textContent()).resolves.toContain(
            `${report.checkedRuns} runs checked, ${report.findings.length} findings.`,
          );
          await expect(page.locator('table.regressions tbody tr').count()).resolves.toBe(
            report.findings.length,
          );
        }
        if (path === '/runs/') {
          await expect(page.locator('table.runs tbody tr').count()).resolves.toBe(Math.min(200, runs.length));
        }
        expect(problems).toEqual([]);
        await page.close();
      }
    });

    test('synthetic runs are labelled as such, real ones are not', async () => {
      const { page } = await visit('/', 'overview-again');
      const banner = await page.locator('.synthetic-banner').count();
      expect(banner > 0).toBe(
        runs.some(
          ({ run }) => run.tool.version === 'synthetic' || run.host.hostname.startsWith('synthetic-'),
        ),
      );
      await page.close();
    });

    test('no page ships more than 150 KB of gzip JavaScript; tables pages ship none', () => {
      const pages = measurePages(outDir);
      expect(pages.length).toBeGreaterThan(5);
      for (const p of pages) expect(p.gzipBytes, p.page).toBeLessThanOrEqual(150 * 1024);
      const run = pages.find((p) => p.page.startsWith('/run/'))!;
      expect(run.gzipBytes).toBe(0);
    });
  },
);

describe('an invalid result file', () => {
  test('fails the build, naming the file and the field', async () => {
    const bad = await mkdtemp(join(tmpdir(), 'rb-site-bad-'));
    try {
      const run = syntheticRun(0) as unknown as { host: { memoryBytes: unknown } };
      run.host.memoryBytes = -1;
      const path = join(bad, 'runs', '2026', '01', '01', 'bad.json');
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, serializeResult(run as never));
      const build = await buildSite(bad, join(bad, 'dist'));
      expect(build.code).not.toBe(0);
      expect(build.output).toContain(`${path}: host.memoryBytes:`);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  }, 180_000);
});
