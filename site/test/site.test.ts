// Builds the real site (astro build in a child process) from the repository's data/ and drives it
// with Debian's chromium at a desktop (1366 px) and a phone (390 px) width. Every expectation is
// computed in this file from the raw result files (test/expect.ts), never through the site's own
// aggregation. While data/ has no result files, the site is built from synthetic files instead,
// and the test says so loudly. Heavy by nature: every test carries an explicit budget that a
// loaded two-core machine stays well inside (issue 15), and playwright's own waits get the same.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostClassOf } from '@runtime-bench/schemas';
import { serializeResult } from '@runtime-bench/runner';
import { loadRuns, type LoadedRun } from '../src/lib/load.ts';
import { measurePages } from '../bench/measure.ts';
import { syntheticRun, writeSyntheticRuns } from '../bench/synthetic.ts';
import { buildSite, SITE_DIR } from './helpers/build.ts';
import { serveStatic, type StaticServer } from './helpers/serve.ts';
import {
  newestPerHostAndTarget,
  parseShown,
  plainMedian,
  sameToShownPrecision,
  samplesOf,
  toBase,
} from './expect.ts';

const REPO_DATA = join(SITE_DIR, '..', 'data');
const SCREENSHOTS = join(SITE_DIR, 'test', 'screenshots');
const WIDTHS = [1366, 390] as const;
/** Budget of one test; a build or a page walk on an idle machine takes a tenth of it. */
const BUDGET = 900_000;
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
}, BUDGET);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

interface Visit {
  page: Page;
  problems: string[];
}

/** Opens a page at a width, collecting console errors, page errors and failed requests. */
async function visit(path: string, width: number = WIDTHS[0]): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width, height: width > 500 ? 900 : 844 } });
  page.setDefaultTimeout(120_000);
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
  return { page, problems };
}

async function shoot(page: Page, name: string): Promise<void> {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: height < 12_000 });
}

/** No sideways scroll, and no NaN / Infinity / undefined anywhere in the text. */
async function expectReadable(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth, text } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    text: document.body.innerText,
  }));
  expect(scrollWidth, `${what}: page wider than the screen`).toBeLessThanOrEqual(innerWidth);
  expect(text, what).not.toMatch(/\bNaN\b|Infinity|\bundefined\b/);
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
      return { drawn: (c as HTMLElement).dataset.drawn === 'true', painted, w: canvas.width };
    }),
  );
  expect(counts.length).toBeGreaterThanOrEqual(atLeast);
  for (const c of counts) {
    expect(c.drawn).toBe(true);
    expect(c.painted).toBeGreaterThan(500);
  }
}

/** The rows of an HTML table as text, by header. */
async function tableRows(page: Page, selector: string): Promise<Record<string, string>[]> {
  return page.$eval(selector, (table) => {
    const heads = Array.from((table as HTMLTableElement).tHead!.rows[0]!.cells).map((c) =>
      c.textContent!.trim(),
    );
    return Array.from((table as HTMLTableElement).tBodies[0]!.rows).map((tr) =>
      Object.fromEntries(Array.from(tr.cells).map((c, i) => [heads[i]!, c.textContent!.trim()])),
    );
  });
}

/**
 * Checks a compare table against the raw files: for each metric row, both medians and their
 * ratio, computed here from the samples of the two sides.
 */
function checkCompareRows(
  rows: Record<string, string>[],
  side: (target: string) => { base: LoadedRun['run']; cand: LoadedRun['run']; bt: string; ct: string },
): number {
  let checked = 0;
  for (const row of rows) {
    const m = /^(\S+) · (.+) [↓↑]$/.exec(row['Benchmark · metric']!);
    if (!m) continue; // status and error-rate rows
    const [, benchmark, metric] = m as unknown as [string, string, string];
    const { base, cand, bt, ct } = side(row.Target!);
    const a = samplesOf(base, bt, benchmark, metric);
    const b = samplesOf(cand, ct, benchmark, metric);
    if (a.length === 0 || b.length === 0) continue;
    const unit = base.results
      .find((r) => r.target === bt && r.benchmark === benchmark)!
      .metrics.find((x) => x.name === metric)!.unit;
    const ma = plainMedian(a);
    const mb = plainMedian(b);
    const shownA = parseShown(row['Baseline median']!);
    const shownB = parseShown(row['Candidate median']!);
    expect(
      sameToShownPrecision(shownA!, toBase(ma, unit)),
      `${benchmark} ${metric} baseline ${row['Baseline median']} vs ${ma} ${unit}`,
    ).toBe(true);
    expect(
      sameToShownPrecision(shownB!, toBase(mb, unit)),
      `${benchmark} ${metric} candidate ${row['Candidate median']} vs ${mb} ${unit}`,
    ).toBe(true);
    expect(row['Baseline median']).toContain(`(n=${a.length})`);
    if (ma > 0) {
      const ratio = Number(/^×([\d.e+-]+)/.exec(row['Ratio [95 % CI]']!)![1]);
      expect(
        sameToShownPrecision(ratio, mb / ma, 3),
        `${benchmark} ${metric} ratio ${ratio} vs ${mb / ma}`,
      ).toBe(true);
    }
    checked++;
  }
  return checked;
}

describe(`the site built from ${hasRealData ? 'the real data/' : 'SYNTHETIC data (data/ is empty)'}`, () => {
  test('there is something to show', () => {
    expect(runs.length).toBeGreaterThan(0);
  });

  test(
    'every page type, at 1366 and 390 px: no console error, no sideways scroll, no NaN/Infinity/undefined',
    async () => {
      const first = async (path: string, selector: string) => {
        const { page } = await visit(path);
        const link = await page.locator(selector).first().getAttribute('href');
        await page.close();
        return new URL(link!, server.url).pathname;
      };
      const newest = runs.at(-1)!.run.runId;
      const pages: [string, string][] = [
        ['/', 'status'],
        ['/overview/', 'overview'],
        ['/compare/', 'compare'],
        [await first('/compare/', 'ul.pairs a'), 'compare-pair'],
        ['/benchmarks/', 'benchmarks'],
        [await first('/benchmarks/', 'main li a[href*="/benchmark/"]'), 'benchmark'],
        ['/runtimes/', 'runtimes'],
        [await first('/runtimes/', 'main a[href*="/runtime/"]'), 'runtime'],
        ['/runs/', 'runs'],
        [`/run/${newest}/`, 'run'],
        ['/regressions/', 'regressions'],
      ];
      for (const [path, name] of pages) {
        for (const width of WIDTHS) {
          const { page, problems } = await visit(path, width);
          if (name === 'benchmark') await expectChartsDrawn(page, 1);
          await expectReadable(page, `${path} at ${width} px`);
          await shoot(page, `${name}-${width}`);
          expect(problems, `${path} at ${width} px`).toEqual([]);
          await page.close();
        }
      }
    },
    BUDGET,
  );

  test(
    'home: the newest run of every host class, with what the gate could not check',
    async () => {
      const { page } = await visit('/');
      const newest = new Map<string, string>();
      for (const { run } of runs) newest.set(hostClassOf(run.host), run.runId); // runs are in time order
      for (const [host, runId] of newest) {
        const section = page.locator('section.status', { has: page.locator('h2', { hasText: host }) });
        await expect(section.locator('.status-line a').first().textContent()).resolves.toBe(runId);
        await expect(section.locator('.count-nobaseline').count()).resolves.toBe(1);
      }
      await page.close();
    },
    BUDGET,
  );

  test(
    'overview: each cell is the median of its newest run; a best is strictly best; ties are not best',
    async () => {
      const { page } = await visit('/overview/');
      // host label → benchmark → metric → target → { text, kind }
      const shown = await page.$$eval('section[data-host]', (sections) =>
        sections.map((s) => {
          const host = s.querySelector('h2')!.childNodes[0]!.textContent!.trim();
          const combos = Array.from(s.querySelectorAll('thead th[data-combo]')).map(
            (th) => (th as HTMLElement).dataset.combo!,
          );
          const cells: { benchmark: string; metric: string; combo: string; text: string; kind: string }[] =
            [];
          for (const body of Array.from(s.querySelectorAll('tbody'))) {
            const benchmark = body.querySelector('tr.family a')!.textContent!.trim();
            for (const tr of Array.from(body.querySelectorAll('tr[data-name]'))) {
              Array.from(tr.querySelectorAll('td')).forEach((td, i) =>
                cells.push({
                  benchmark,
                  metric: (tr as HTMLElement).dataset.name!,
                  combo: combos[i]!,
                  text: td.querySelector('.median')?.textContent ?? '',
                  kind: td.dataset.kind ?? '',
                }),
              );
            }
          }
          return { host, cells };
        }),
      );
      const newest = newestPerHostAndTarget(runs);
      let checked = 0;
      for (const { host, cells } of shown) {
        const byTarget = newest.get(host)!;
        expect(byTarget, host).toBeDefined();
        // benchmark × metric → the row's cells with the value computed from the raw samples
        const rows = new Map<string, { combo: string; kind: string; ok: number | null }[]>();
        for (const c of cells) {
          const run = byTarget.get(c.combo)!;
          const result = run.results.find((r) => r.target === c.combo && r.benchmark === c.benchmark);
          const metric = result?.metrics.find((m) => m.name === c.metric);
          const value =
            metric && metric.samples.length > 0 ? toBase(plainMedian(metric.samples), metric.unit) : null;
          if (value !== null) {
            expect(
              sameToShownPrecision(parseShown(c.text)!, value),
              `${host} ${c.combo} ${c.benchmark} ${c.metric}: ${c.text}`,
            ).toBe(true);
            checked++;
          }
          const key = `${c.benchmark} · ${c.metric}`;
          const ok = result?.status === 'ok' ? value : null;
          rows.set(key, [...(rows.get(key) ?? []), { combo: c.combo, kind: c.kind, ok }]);
        }
        for (const [key, row] of rows) {
          const best = row.filter((c) => c.kind === 'best');
          expect(best.length, key).toBeLessThanOrEqual(1);
          if (best.length === 0) continue;
          const b = best[0]!.ok!;
          // strictly better than every other ok cell, in one direction or the other: a tie is never best
          const others = row.filter((c) => c.combo !== best[0]!.combo && c.ok !== null).map((c) => c.ok!);
          expect(
            others.every((v) => v > b) || others.every((v) => v < b),
            `${key}: the "best" cell is not strictly best`,
          ).toBe(true);
        }
      }
      expect(checked).toBeGreaterThan(0);
      await page.close();
    },
    BUDGET,
  );

  test(
    'overview: multi-select filters hide other columns and live in the URL',
    async () => {
      const ocis = [...new Set(runs.flatMap(({ run }) => run.targets.map((t) => t.oci.name)))].sort();
      const chosen = ocis.slice(0, Math.min(2, ocis.length));
      const q = chosen.map((o) => `oci=${encodeURIComponent(o)}`).join('&');
      const { page, problems } = await visit(`/overview/?${q}`);
      const visible = () =>
        page.$$eval('table.matrix thead th[data-oci]', (ths) =>
          ths.filter((th) => !(th as HTMLElement).hidden).map((th) => (th as HTMLElement).dataset.oci!),
        );
      expect(new Set(await visible())).toEqual(new Set(chosen));
      for (const o of chosen)
        await expect(page.locator(`rb-filters input[name="oci"][value="${o}"]`).isChecked()).resolves.toBe(
          true,
        );
      await page.locator('rb-filters button.clear').click();
      expect(new URL(page.url()).searchParams.has('oci')).toBe(false);
      expect((await visible()).length).toBe(await page.locator('table.matrix thead th[data-oci]').count());
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    'overview: the header and the first column stay visible after scrolling',
    async () => {
      const { page } = await visit('/overview/');
      const box = page.locator('.sticky-scroll').first();
      await box.scrollIntoViewIfNeeded();
      const before = await box.evaluate((el) => ({ can: el.scrollHeight > el.clientHeight + 50 }));
      expect(before.can, 'the matrix is taller than its box').toBe(true);
      const after = await box.evaluate((el) => {
        el.scrollTop = el.scrollHeight / 2;
        el.scrollLeft = el.scrollWidth;
        const boxRect = el.getBoundingClientRect();
        const head = el.querySelector('thead th:nth-child(2)')!.getBoundingClientRect();
        const firstCol = el.querySelector('tbody tr[data-name] th')!.getBoundingClientRect();
        return {
          scrolled: el.scrollTop,
          boxTop: boxRect.top,
          headTop: head.top,
          boxLeft: boxRect.left,
          colLeft: firstCol.left,
        };
      });
      expect(after.scrolled).toBeGreaterThan(0);
      expect(Math.abs(after.headTop - after.boxTop)).toBeLessThanOrEqual(2);
      expect(Math.abs(after.colLeft - after.boxLeft)).toBeLessThanOrEqual(2);
      await page.close();
    },
    BUDGET,
  );

  test(
    'overview: sorting by a column reorders the rows by that column',
    async () => {
      const { page } = await visit('/overview/');
      const section = page.locator('section[data-host]').first();
      const keys = () =>
        section.locator('tbody').evaluateAll((bodies) =>
          bodies.map((b) =>
            Array.from(b.querySelectorAll('tr[data-name]')).map((tr) => ({
              name: (tr as HTMLElement).dataset.name!,
              key: Number((tr as HTMLTableRowElement).cells[1]!.dataset.sort),
            })),
          ),
        );
      const original = await keys();
      await section.locator('button.sort[data-col="1"]').click();
      const ascending = await keys();
      await section.locator('button.sort[data-col="1"]').click();
      const descending = await keys();
      // rows without a compared value (not run, failed, …) carry no number and stay at the bottom
      const NONE = Number.MAX_SAFE_INTEGER;
      const monotonic = (bodies: typeof original, sign: 1 | -1) => {
        for (const body of bodies) {
          const values = body.map((r) => r.key);
          const firstNone = values.indexOf(NONE);
          if (firstNone >= 0) expect(values.slice(firstNone).every((v) => v === NONE)).toBe(true);
          const real = firstNone >= 0 ? values.slice(0, firstNone) : values;
          for (let i = 1; i < real.length; i++)
            expect(sign * (real[i]! - real[i - 1]!)).toBeGreaterThanOrEqual(0);
        }
      };
      monotonic(ascending, 1);
      monotonic(descending, -1);
      // the same rows, in another order somewhere
      expect(ascending.map((b) => b.map((r) => r.name).sort())).toEqual(
        original.map((b) => b.map((r) => r.name).sort()),
      );
      expect(JSON.stringify(ascending)).not.toBe(JSON.stringify(descending));
      await page.close();
    },
    BUDGET,
  );

  test(
    'compare: a pre-rendered pair and a pair picked in the browser show the medians and ratios of the raw samples',
    async () => {
      // Pre-rendered: the newest run's runc target against another target of that run.
      const { page } = await visit('/compare/');
      const pairHref = await page
        .locator('ul.pairs a:not([href*="latest-vs-previous"])')
        .first()
        .getAttribute('href');
      await page.close();
      const pre = await visit(pairHref!);
      const title = (await pre.page.locator('h1').textContent())!;
      const [, bt, ct, runId] = /^(\S+) vs (\S+) in (\S+)$/.exec(title.trim())!;
      const run = runs.find((r) => r.run.runId === runId)!.run;
      const rows = await tableRows(pre.page, 'table.compare');
      const checkedPre = checkCompareRows(rows, () => ({ base: run, cand: run, bt: bt!, ct: ct! }));
      expect(checkedPre).toBeGreaterThan(0);
      await pre.page.close();

      // Client-side: the two newest runs of the busiest host class, targets paired by id.
      const byHost = new Map<string, LoadedRun[]>();
      for (const r of runs)
        byHost.set(hostClassOf(r.run.host), [...(byHost.get(hostClassOf(r.run.host)) ?? []), r]);
      const list = [...byHost.values()].sort((a, b) => b.length - a.length)[0]!;
      if (list.length < 2) return;
      const [a, b] = [list.at(-2)!.run, list.at(-1)!.run];
      const live = await visit(`/compare/?a=${a.runId}&b=${b.runId}`);
      await live.page.locator('rb-compare table.compare').waitFor();
      const liveRows = await tableRows(live.page, 'rb-compare table.compare');
      const checkedLive = checkCompareRows(liveRows, (target) => ({
        base: a,
        cand: b,
        bt: target,
        ct: target,
      }));
      expect(checkedLive).toBeGreaterThan(0);
      // largest change first
      const sizes = liveRows
        .map((r) => /^×([\d.e+-]+)/.exec(r['Ratio [95 % CI]'] ?? '')?.[1])
        .filter((x): x is string => x !== undefined)
        .map((x) => Math.abs(Math.log(Number(x))));
      for (let i = 1; i < sizes.length; i++) expect(sizes[i]!).toBeLessThanOrEqual(sizes[i - 1]! + 0.01);
      expect(live.problems).toEqual([]);
      await live.page.close();
    },
    BUDGET,
  );

  test(
    'benchmark pages, one per family (its most-run benchmark): charts drew and the distribution table shows the median of the newest runs',
    async () => {
      const newest = newestPerHostAndTarget(runs);
      const { page: index } = await visit('/benchmarks/');
      const links = await index.$$eval('main li a[href*="/benchmark/"]', (as) =>
        as.map((a) => (a as HTMLAnchorElement).pathname),
      );
      await index.close();
      // Every page is built by the same template: walking all ~90 took most of this file's time.
      // One page per family, of the benchmark with the most (host, target) series in the newest
      // runs (counted here from the raw files), covers every kind of metric table and chart.
      const series = new Map<string, number>();
      for (const byTarget of newest.values())
        for (const [target, run] of byTarget)
          for (const r of run.results)
            if (r.target === target) series.set(r.benchmark, (series.get(r.benchmark) ?? 0) + 1);
      const benchmarkOf = (path: string) => decodeURIComponent(path.split('/')[2]!);
      const familyOf = (benchmark: string) => benchmark.split('.')[0]!;
      const chosen = new Map<string, string>(); // family → path
      for (const path of links) {
        const family = familyOf(benchmarkOf(path));
        const held = chosen.get(family);
        if (!held || (series.get(benchmarkOf(path)) ?? 0) > (series.get(benchmarkOf(held)) ?? 0))
          chosen.set(family, path);
      }
      // The index lists every family the raw files hold results for.
      expect([...chosen.keys()].sort()).toEqual([...new Set([...series.keys()].map(familyOf))].sort());
      for (const path of chosen.values()) {
        const { page, problems } = await visit(path);
        const [benchmark, metric] = [
          (await page.locator('h1').textContent())!.split(' · ')[0]!,
          (await page.locator('.how-to-read strong').first().textContent())!,
        ];
        const sections = await page.$$eval('section[data-host]', (ss) =>
          ss.map((s) => ({
            host: s.querySelector('h2')!.childNodes[0]!.textContent!.trim(),
            rows: Array.from(s.querySelectorAll('table.distribution tbody tr')).map((tr) => ({
              combo: (tr as HTMLElement).dataset.combo!,
              median: tr.querySelector('.median')!.textContent!,
            })),
          })),
        );
        for (const s of sections)
          for (const r of s.rows) {
            const run = newest.get(s.host)!.get(r.combo)!;
            const samples = samplesOf(run, r.combo, benchmark, metric);
            if (samples.length === 0) continue;
            const unit = run.results
              .find((x) => x.target === r.combo && x.benchmark === benchmark)!
              .metrics.find((m) => m.name === metric)!.unit;
            expect(
              sameToShownPrecision(parseShown(r.median)!, toBase(plainMedian(samples), unit)),
              `${path} ${r.combo}`,
            ).toBe(true);
          }
        if (sections.length > 0) await expectChartsDrawn(page, 1);
        expect(problems, path).toEqual([]);
        await page.close();
      }
    },
    BUDGET,
  );

  test(
    'run page: host, versions, every metric with raw samples, and the JSON file',
    async () => {
      const { run, file } = runs.at(-1)!;
      const { page, problems } = await visit(`/run/${run.runId}/`);
      await expect(page.locator('table.host').textContent()).resolves.toContain(run.host.kernel);
      for (const c of run.components)
        await expect(page.locator('table.components').textContent()).resolves.toContain(c.version);
      for (const r of run.results) {
        for (const m of r.metrics) {
          const row = page.locator(
            `table.metrics[data-target="${r.target}"][data-benchmark="${r.benchmark}"] tr[data-metric="${m.name}"]`,
          );
          await expect(row.locator('.samples').textContent()).resolves.toContain(m.samples.join(', '));
          if (m.samples.length > 0) {
            const shown = parseShown((await row.locator('.median').textContent())!);
            expect(sameToShownPrecision(shown!, toBase(plainMedian(m.samples), m.unit))).toBe(true);
          }
        }
      }
      const href = await page.locator('a.json-link').getAttribute('href');
      expect(href).toBe(`/data/${file}`);
      const json = await page.evaluate(async (u) => (await fetch(u)).json(), href!);
      expect(json).toMatchObject({ runId: run.runId, startedAt: run.startedAt });
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    'synthetic runs are labelled as such, real ones are not',
    async () => {
      const { page } = await visit('/');
      const banner = await page.locator('.synthetic-banner').count();
      expect(banner > 0).toBe(
        runs.some(
          ({ run }) => run.tool.version === 'synthetic' || run.host.hostname.startsWith('synthetic-'),
        ),
      );
      await page.close();
    },
    BUDGET,
  );

  test('no page ships more than 150 KB of gzip JavaScript or 300 KB of gzip HTML; run pages ship no JS', () => {
    const pages = measurePages(outDir);
    expect(pages.length).toBeGreaterThan(5);
    for (const p of pages) {
      expect(p.gzipBytes, p.page).toBeLessThanOrEqual(150 * 1024);
      expect(p.htmlGzipBytes, p.page).toBeLessThanOrEqual(300 * 1024);
    }
    expect(pages.find((p) => p.page.startsWith('/run/'))!.gzipBytes).toBe(0);
  });
});

describe('an invalid result file', () => {
  test(
    'fails the build, naming the file and the field',
    async () => {
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
    },
    BUDGET,
  );
});
