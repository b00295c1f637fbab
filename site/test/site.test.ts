// Builds the real site (astro build in a child process) from the repository's data/ and drives it
// with Debian's chromium at a desktop (1366 px) and a phone (390 px) width. Every expectation is
// computed in this file from the raw result files (test/expect.ts), never through the site's own
// aggregation. While data/ has no result files, the site is built from synthetic files instead,
// and the test says so loudly. Heavy by nature: every test carries an explicit budget that a
// loaded two-core machine stays well inside (issue 15), and playwright's own waits get the same.
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { serializeResult } from '@runtime-bench/runner';
import { loadRuns, type LoadedRun } from '../src/lib/load.ts';
import { measurePages } from '../bench/measure.ts';
import { syntheticKubernetesRuns, syntheticRun, writeRuns, writeSyntheticRuns } from '../bench/synthetic.ts';
import { KUBERNETES_COUNTERPARTS } from '@runtime-bench/runner/overhead';
import { buildSite, SITE_DIR } from './helpers/build.ts';
import { expectReadable, launchChromium, openAt, type Visit } from './helpers/browser.ts';
import { serveStatic, type StaticServer } from './helpers/serve.ts';
import { makeRun, spread } from './lib/fixtures.ts';
import {
  newestPerHostAndTarget,
  parameterKey,
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
/** The synthetic CRI-level run beside the pod-level ones (host B: odd index; containerd runc and runsc). */
const K8S_CRI_RUN = 101;
const K8S_STARTED = '2026-01-27T00:00:00.000Z';
const K8S_CLUSTER = {
  nodes: ['synthetic-node-1', 'synthetic-node-2'],
  classes: [
    { runtimeClass: 'runc', handler: 'runc' },
    { runtimeClass: 'gvisor', handler: 'runsc' },
    { runtimeClass: 'kata', handler: 'kata' },
  ],
  hostIndex: 1,
};
let outDir: string;
let server: StaticServer;
let browser: Browser;
let runs: LoadedRun[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-test-'));
  outDir = join(work, 'dist');
  dataDir = join(work, 'data');
  if (hasRealData) {
    await cp(REPO_DATA, dataDir, { recursive: true });
  } else {
    console.warn('site test: data/ holds no result files yet; building from 24 SYNTHETIC files instead');
    await writeSyntheticRuns(dataDir, 24);
  }
  // Pod-level results of one node class (two nodes of one cluster run, three RuntimeClasses, one of
  // them with a handler no CRI-level run has) beside a CRI-level run of the same class: synthetic
  // files of a host class of their own, so that every page also shows kubernetes targets.
  await writeRuns(dataDir, [syntheticRun(K8S_CRI_RUN), ...syntheticKubernetesRuns(K8S_STARTED, K8S_CLUSTER)]);
  runs = loadRuns(dataDir);
  const build = await buildSite(dataDir, outDir);
  if (build.code !== 0) throw new Error(`astro build failed:\n${build.output.slice(-3000)}`);
  server = await serveStatic(outDir);
  browser = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
}, BUDGET);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** Opens a page of the built site at a width (helpers/browser.ts). */
function visit(path: string, width: number = WIDTHS[0]): Promise<Visit> {
  return openAt(browser, `${server.url}${path}`, width);
}

async function shoot(page: Page, name: string): Promise<void> {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: height < 12_000 });
}

/** Every <rb-chart> drew: its element says so and its canvas has non-transparent pixels. */
async function expectChartsDrawn(page: Page, atLeast: number): Promise<void> {
  // A loaded runner may run the page's module script late: wait (within a budget) for every chart
  // to say it drew and for two more animation frames, then read each canvas once (repeated
  // readbacks make Chromium warn on the console, which the page tests count as a problem).
  await page
    .waitForFunction(
      () =>
        Array.from(document.querySelectorAll('rb-chart')).every(
          (c) => (c as HTMLElement).dataset.drawn === 'true',
        ),
      null,
      { timeout: 120_000, polling: 250 },
    )
    .catch(() => undefined);
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
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
    // the minimum detectable effect, or "none" when no difference could be significant: with at
    // most 3 values a side the smallest two-sided rank-test p is 2/C(6,3) = 0.1, above any level
    const detect = row['Could detect']!;
    const none = /^none at n = (\d+) vs (\d+)$/.exec(detect);
    expect(detect, `${benchmark} ${metric}`).toMatch(/^(≥ \d+(\.\d+)? %|none at n = \d+ vs \d+|–)$/);
    if (none) expect([Number(none[1]), Number(none[2])]).toEqual([a.length, b.length]);
    if (a.length <= 3 && b.length <= 3) expect(detect, `${benchmark} ${metric}`).not.toMatch(/^≥/);
    const params = (run: LoadedRun['run'], target: string) =>
      parameterKey(run.results.find((r) => r.target === target && r.benchmark === benchmark)!.parameters);
    if (params(base, bt) !== params(cand, ct)) {
      // measured with other parameters: the medians, but no ratio and no verdict
      expect(row['Ratio [95 % CI]'], `${benchmark} ${metric}`).toBe('–');
      expect(row.Verdict, `${benchmark} ${metric}`).toBe('parameters differ');
    } else if (ma > 0) {
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

describe(`the site built from ${hasRealData ? 'the real data/' : 'SYNTHETIC data (data/ is empty)'} and synthetic kubernetes results`, () => {
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
        [`/run/?id=${newest}`, 'run'],
        ['/regressions/', 'regressions'],
        ['/kubernetes/', 'kubernetes'],
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
        // the gate's coverage adds up, and the rows of benchmark × target × parameters never
        // measured before on this host class are counted from the files: one per metric, plus
        // an error-rate row where attempts failed
        const line = (await section.locator('.coverage-line').textContent())!;
        const all = /All (\d+) rows? checked/.exec(line);
        const some = /(\d+) of (\d+) rows checked/.exec(line);
        const [checked, total] = all
          ? [Number(all[1]), Number(all[1])]
          : [Number(some![1]), Number(some![2])];
        const reasons = await section
          .locator('ul.not-checked li')
          .evaluateAll((lis) =>
            lis.map((li) => ({ rows: Number((li as HTMLElement).dataset.rows), text: li.textContent! })),
          );
        expect(checked + reasons.reduce((n, r) => n + r.rows, 0)).toBe(total);
        const earlier = runs.filter((r) => hostClassOf(r.run.host) === host && r.run.runId !== runId);
        const key = (r: { benchmark: string; target: string; parameters: unknown }) =>
          `${r.benchmark} ${r.target} ${JSON.stringify(r.parameters)}`;
        const seen = new Set(earlier.flatMap((e) => e.run.results.map(key)));
        // a target renamed since keeps its history when what it measured (CRI runtime, handler,
        // OCI runtime, transport, RuntimeClass) is unique in its run and in the earlier one
        type Run = (typeof runs)[number]['run'];
        const measured = (run: Run, id: string): string | null => {
          const ident = (t: Run['targets'][number]) =>
            `${t.cri.name}|${t.handler}|${t.oci.name}|${t.transport}|${t.kubernetes?.runtimeClass ?? ''}`;
          const mine = ident(run.targets.find((t) => t.id === id)!);
          return run.targets.filter((t) => ident(t) === mine).length === 1 ? mine : null;
        };
        const measuredKey = (run: Run, r: Run['results'][number]) => {
          const m = measured(run, r.target);
          return m === null ? null : `${r.benchmark} ${m} ${JSON.stringify(r.parameters)}`;
        };
        const seenMeasured = new Set(earlier.flatMap((e) => e.run.results.map((r) => measuredKey(e.run, r))));
        const current = runs.find((r) => r.run.runId === runId)!.run;
        const fresh = current.results
          .filter((r) => !seen.has(key(r)))
          .filter((r) => {
            const m = measuredKey(current, r);
            return m === null || !seenMeasured.has(m);
          })
          .reduce(
            (n, r) => n + r.metrics.length + (r.status !== 'interrupted' && r.failedAttempts > 0 ? 1 : 0),
            0,
          );
        const reason =
          earlier.length === 0 ? 'no earlier run of this host class' : 'no earlier run of this benchmark';
        expect(reasons.find((r) => r.text.includes(reason))?.rows ?? 0, `${host}: ${reason}`).toBe(fresh);
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
          // each column names the run and the target id its numbers come from
          const combos = Array.from(s.querySelectorAll('thead th[data-combo]')).map((th) => ({
            run: (th as HTMLElement).dataset.run!,
            target: (th as HTMLElement).dataset.target!,
          }));
          const cells: {
            benchmark: string;
            metric: string;
            combo: { run: string; target: string };
            text: string;
            kind: string;
          }[] = [];
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
        const rows = new Map<string, { combo: string; kind: string; ok: number | null; params: string }[]>();
        for (const c of cells) {
          const run = runs.find((l) => l.run.runId === c.combo.run)!.run;
          // a column is the newest run of what its target measured: no newer run has its target id
          expect(Date.parse(run.startedAt), `${c.combo.target}`).toBeGreaterThanOrEqual(
            Date.parse(byTarget.get(c.combo.target)!.startedAt),
          );
          const result = run.results.find((r) => r.target === c.combo.target && r.benchmark === c.benchmark);
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
          const params = result ? parameterKey(result.parameters) : '';
          rows.set(key, [
            ...(rows.get(key) ?? []),
            { combo: `${c.combo.run} ${c.combo.target}`, kind: c.kind, ok, params },
          ]);
        }
        for (const [key, row] of rows) {
          const best = row.filter((c) => c.kind === 'best');
          expect(best.length, key).toBeLessThanOrEqual(1);
          if (best.length === 0) continue;
          const b = best[0]!.ok!;
          // strictly better than every other ok cell it was compared with (same parameters, not set
          // apart), in one direction or the other: a tie is never best
          const others = row
            .filter((c) => c.combo !== best[0]!.combo && c.ok !== null && c.kind !== 'apart')
            .filter((c) => c.params === best[0]!.params)
            .map((c) => c.ok!);
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
      // A host and a column (a run) holding two different compared values, so that sorting can change
      // the order: a row ranks only the cells of one run, so a column may compare nothing (its cells
      // "separate run"), and a host with only engine runs may compare nothing at all.
      const found = await page.locator('section[data-host]').evaluateAll((sections) => {
        for (let s = 0; s < sections.length; s++) {
          const bodies = Array.from(sections[s]!.querySelectorAll('tbody'));
          const columns = Math.max(
            0,
            ...bodies.flatMap((b) =>
              Array.from(b.querySelectorAll('tr[data-name]')).map(
                (tr) => (tr as HTMLTableRowElement).cells.length,
              ),
            ),
          );
          for (let col = 1; col < columns; col++) {
            const sortable = bodies.some((body) => {
              const values = Array.from(body.querySelectorAll('tr[data-name]'))
                .map((tr) => (tr as HTMLTableRowElement).cells[col]?.dataset.sort)
                .filter((v) => v !== undefined && Number(v) !== Number.MAX_SAFE_INTEGER);
              return new Set(values).size >= 2;
            });
            const button = sections[s]!.querySelector<HTMLElement>(`button.sort[data-col="${col}"]`);
            // a hidden column's button cannot be clicked
            if (sortable && button && button.offsetParent !== null) return { section: s, col };
          }
        }
        return null;
      });
      expect(found, 'no host section with a column of two compared values').not.toBeNull();
      const { section: sortable, col } = found!;
      const section = page.locator('section[data-host]').nth(sortable);
      const keys = () =>
        section.locator('tbody').evaluateAll(
          (bodies, c) =>
            bodies.map((b) =>
              Array.from(b.querySelectorAll('tr[data-name]')).map((tr) => ({
                name: (tr as HTMLElement).dataset.name!,
                key: Number((tr as HTMLTableRowElement).cells[c]!.dataset.sort),
              })),
            ),
          col,
        );
      const original = await keys();
      await section.locator(`button.sort[data-col="${col}"]`).click();
      const ascending = await keys();
      await section.locator(`button.sort[data-col="${col}"]`).click();
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

      // Client-side: the newest two runs of the busiest host class that share a target (paired by
      // id; a run of new targets, e.g. the first CRI-O run, has no partner in the run before it).
      const byHost = new Map<string, LoadedRun[]>();
      for (const r of runs)
        byHost.set(hostClassOf(r.run.host), [...(byHost.get(hostClassOf(r.run.host)) ?? []), r]);
      const list = [...byHost.values()].sort((a, b) => b.length - a.length)[0]!.map((r) => r.run);
      const shareTarget = (x: RunResult, y: RunResult) =>
        x.targets.some((t) => y.targets.some((u) => u.id === t.id));
      let pair: [RunResult, RunResult] | undefined;
      for (let j = list.length - 1; j > 0 && !pair; j--)
        for (let i = j - 1; i >= 0 && !pair; i--)
          if (shareTarget(list[i]!, list[j]!)) pair = [list[i]!, list[j]!];
      if (!pair) return;
      const [a, b] = pair;
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
              combo: (tr as HTMLElement).dataset.target!,
              runId: (tr as HTMLElement).dataset.run!,
              median: tr.querySelector('.median')!.textContent!,
            })),
          })),
        );
        for (const s of sections)
          for (const r of s.rows) {
            // the row names its run and target id; no newer run has that target id
            const run = runs.find((l) => l.run.runId === r.runId)!.run;
            expect(Date.parse(run.startedAt)).toBeGreaterThanOrEqual(
              Date.parse(newest.get(s.host)!.get(r.combo)!.startedAt),
            );
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
    "version trends from real sweeps: every runc version one run measured side by side is a point with that run's median and n",
    async () => {
      // The runs that measured two or more runc versions side by side (the sweeps in data/).
      const ociVersions = (run: RunResult) =>
        new Set(run.targets.filter((t) => t.oci.name === 'runc').map((t) => t.oci.version));
      const sweeps = runs.filter(({ run }) => ociVersions(run).size >= 2).map(({ run }) => run);
      if (!hasRealData) return;
      expect(sweeps.length, 'data/ holds a runc sweep').toBeGreaterThan(0);
      // Versions no other file measured: their point is exactly the sweep's samples.
      const only = new Map<string, RunResult>();
      for (const sweep of sweeps)
        for (const v of ociVersions(sweep))
          if (runs.every(({ run }) => run === sweep || !ociVersions(run).has(v))) only.set(v, sweep);
      expect(only.size).toBeGreaterThanOrEqual(2);
      const { page: index } = await visit('/benchmarks/');
      const path = (await index.$$eval('main li a[href*="/benchmark/"]', (as) =>
        as
          .map((a) => (a as HTMLAnchorElement).pathname)
          .find((p) =>
            /\/benchmark\/operations\.container\.lifecycle\/startcontainer\/?$/i.test(decodeURIComponent(p)),
          ),
      ))!;
      await index.close();
      expect(path).toBeTruthy();
      const { page, problems } = await visit(path);
      const rows = await page.$$eval('section[data-host] details table tbody tr[data-oci="runc"]', (trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent!.trim())),
      );
      for (const [version, sweep] of only) {
        const measured = sweep.results
          .filter(
            (r) =>
              r.benchmark === 'operations.container.lifecycle' &&
              r.status === 'ok' &&
              sweep.targets.find((t) => t.id === r.target)!.oci.version === version,
          )
          .flatMap((r) => r.metrics.filter((m) => m.name === 'StartContainer'));
        const unit = measured[0]?.unit ?? 'ms';
        const samples = measured.flatMap((m) => m.samples);
        const shown = rows.filter((r) => r[2] === version);
        expect(shown, `runc ${version}`).toHaveLength(1);
        const [, , , median, , n] = shown[0]!;
        expect(
          sameToShownPrecision(parseShown(median!)!, toBase(plainMedian(samples), unit)),
          `runc ${version}: ${median} vs ${plainMedian(samples)} ${unit}`,
        ).toBe(true);
        expect(n, `runc ${version}`).toBe(`${samples.length} (1)`);
      }
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    'run page: host, versions, every metric with raw samples, and the JSON file',
    async () => {
      const { run, file } = runs.at(-1)!;
      const { page, problems } = await visit(`/run/?id=${run.runId}`);
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
      // anything but a run id is refused before any fetch, with a way out
      const bad = await visit('/run/?id=..%2F..%2Fetc%2Fpasswd');
      await expect(bad.page.locator('.run-status').textContent()).resolves.toContain('is not a run id');
      expect(bad.problems).toEqual([]);
      await bad.page.close();
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

  test(
    'Kubernetes page: each pod-level median beside the CRI-level median of the same node class and handler',
    async () => {
      // Expectations from the files: per pod-level target's host class, CRI runtime, RuntimeClass
      // and handler, the samples of the newest files (by start time) that have samples, pooled.
      const ok = (run: RunResult, target: string, benchmark: string, metric: string) => {
        const r = run.results.find((x) => x.target === target && x.benchmark === benchmark);
        return r?.status === 'ok' ? samplesOf(run, target, benchmark, metric) : [];
      };
      const newestPooled = (
        pick: (run: RunResult) => RunResult['targets'],
        benchmark: string,
        metric: string,
      ) => {
        let best = -Infinity;
        let out = {
          samples: [] as number[],
          runIds: [] as string[],
          ids: new Set<string>(),
          target: null as RunResult['targets'][number] | null,
        };
        for (const { run } of runs)
          for (const t of pick(run)) {
            const xs = ok(run, t.id, benchmark, metric);
            if (xs.length === 0) continue;
            const time = Date.parse(run.startedAt);
            if (time > best) [best, out] = [time, { samples: [], runIds: [], ids: new Set(), target: null }];
            if (time === best) {
              out.samples.push(...xs);
              out.ids.add(t.id);
              out.target = t;
              if (!out.runIds.includes(run.runId)) out.runIds.push(run.runId);
            }
          }
        // the site pools one target id (the nodes of one cluster run); these files have one per time
        expect(out.ids.size).toBeLessThanOrEqual(1);
        return out;
      };
      const podTargets = runs.flatMap(({ run }) =>
        run.targets.filter((t) => t.kubernetes).map((t) => ({ host: hostClassOf(run.host), t })),
      );
      const groups = new Map(
        podTargets.map(({ host, t }) => [
          `${host}|${t.cri.name}|${t.kubernetes!.runtimeClass}|${t.handler}`,
          { host, cri: t.cri.name, rc: t.kubernetes!.runtimeClass, handler: t.handler },
        ]),
      );
      expect(groups.size).toBe(K8S_CLUSTER.classes.length);
      const { page, problems } = await visit('/kubernetes/');
      let checked = 0;
      let missing = 0;
      for (const g of groups.values()) {
        const section = page.locator(
          `section.k8s-group[data-cri="${g.cri}"][data-runtime-class="${g.rc}"][data-handler="${g.handler}"]`,
        );
        await expect(section.count()).resolves.toBe(1);
        await expect(section.locator('xpath=ancestor::section[1]/h2').textContent()).resolves.toContain(
          g.host,
        );
        const podOf = (run: RunResult) =>
          hostClassOf(run.host) === g.host
            ? run.targets.filter((t) => t.kubernetes?.runtimeClass === g.rc && t.handler === g.handler)
            : [];
        const criAll = (run: RunResult) =>
          hostClassOf(run.host) === g.host
            ? run.targets.filter((t) => !t.kubernetes && t.cri.name === g.cri && t.handler === g.handler)
            : [];
        // of the CRI version the nodes report (the newest pod-level target's), if any run has it
        const podVersion = runs.flatMap(({ run }) => podOf(run)).at(-1)!.cri.version;
        const sameVersion = runs.some(({ run }) => criAll(run).some((t) => t.cri.version === podVersion));
        const criOf = (run: RunResult) =>
          criAll(run).filter((t) => !sameVersion || t.cri.version === podVersion);
        const anyCri = runs.some(({ run }) => criAll(run).length > 0);
        await expect(section.locator('.no-cri-level').count()).resolves.toBe(anyCri ? 0 : 1);
        const share = newestPooled(podOf, 'kubernetes.pod-startup', 'kubelet-share');
        const shownShare = parseShown((await section.locator('.kubelet-share .median').textContent())!);
        expect(sameToShownPrecision(shownShare!, toBase(plainMedian(share.samples), 'ms'))).toBe(true);
        for (const c of KUBERNETES_COUNTERPARTS)
          for (const m of c.metrics) {
            const pod = newestPooled(podOf, c.upper, m.upper);
            if (pod.samples.length === 0) continue;
            const row = section.locator(`tr[data-pair="${c.upper} · ${m.upper}"]`);
            await expect(row.count(), `${g.rc} ${c.upper} ${m.upper}`).resolves.toBe(1);
            const unit = runs
              .flatMap(({ run }) => run.results)
              .find((r) => r.benchmark === c.upper)!
              .metrics.find((x) => x.name === m.upper)!.unit;
            const podMedian = plainMedian(pod.samples);
            const shownPod = parseShown((await row.locator('.upper-median .median').textContent())!);
            expect(
              sameToShownPrecision(shownPod!, toBase(podMedian, unit)),
              `${g.rc} ${c.upper} ${m.upper}`,
            ).toBe(true);
            // provenance: the pod median links to exactly the files it pooled
            const links = await row
              .locator('.upper-median a')
              .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
            expect(links.sort()).toEqual(pod.runIds.map((id) => `/run/?id=${id}`).sort());
            const cri = newestPooled(criOf, c.cri, m.cri);
            const criCell = (await row.locator('.cri-median').textContent())!;
            if (cri.samples.length === 0) {
              // said plainly, never a blank
              expect(criCell).toMatch(/No CRI-level run/);
              await expect(row.locator('.ratio').textContent()).resolves.toBe('–');
              missing++;
              continue;
            }
            const criMedian = plainMedian(cri.samples);
            const shownCri = parseShown((await row.locator('.cri-median .median').textContent())!);
            expect(
              sameToShownPrecision(shownCri!, toBase(criMedian, unit)),
              `${g.rc} ${c.cri} ${m.cri}`,
            ).toBe(true);
            const t = cri.target!;
            await expect(row.locator('.cri-median .side-target').textContent()).resolves.toBe(
              `${t.cri.name} ${t.cri.version} · ${t.oci.name} ${t.oci.version}${t.handler === t.oci.name ? '' : ` (handler ${t.handler})`}`,
            );
            const criLinks = await row
              .locator('.cri-median a')
              .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
            expect(criLinks.sort()).toEqual(cri.runIds.map((id) => `/run/?id=${id}`).sort());
            const shownDiff = parseShown(
              (await row.locator('.difference .estimate').textContent())!.replace('+', ''),
            );
            expect(
              sameToShownPrecision(shownDiff!, toBase(podMedian - criMedian, unit)),
              `${g.rc} ${c.upper} ${m.upper} difference`,
            ).toBe(true);
            // pod − CRI now carries its bootstrap interval, which brackets it (two samples a side or more)
            const interval = (await row.locator('.difference .interval').textContent())!.trim();
            if (pod.samples.length >= 2 && cri.samples.length >= 2) {
              const [lo, hi] = interval
                .replace(/^\[|\]$/g, '')
                .split(', ')
                .map((v) => parseShown(v.replace(/^[+±]/, ''))!);
              // to the shown precision (4 digits)
              const slack = Math.abs(shownDiff!) * 1e-3 + 1e-12;
              expect(
                lo! - slack <= shownDiff! && shownDiff! <= hi! + slack,
                `${g.rc} ${c.upper} ${m.upper}: ${interval}`,
              ).toBe(true);
            } else expect(interval).toBe('');
            const shownRatio = Number((await row.locator('.ratio').textContent())!.replace('×', ''));
            expect(
              sameToShownPrecision(shownRatio, podMedian / criMedian, 3),
              `${g.rc} ${c.upper} ${m.upper} ratio`,
            ).toBe(true);
            checked++;
          }
      }
      // both kinds of rows were seen: pairs with numbers (runc, gvisor) and without (kata)
      expect(checked).toBeGreaterThan(0);
      expect(missing).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      await page.close();
      // reachable from every page's navigation, and from the home box of the node class
      const home = await visit('/');
      await expect(home.page.locator('header nav a[href="/kubernetes/"]').count()).resolves.toBe(1);
      await expect(home.page.locator('a.k8s-link').count()).resolves.toBe(1);
      await home.page.close();
    },
    BUDGET,
  );

  test(
    'kubernetes targets in the lists: node × RuntimeClass, handler, kubelet and transport on the Runs page and the matrix',
    async () => {
      const podRuns = runs.filter(({ run }) => run.targets.some((t) => t.kubernetes));
      expect(podRuns.length).toBe(K8S_CLUSTER.nodes.length);
      const label = (t: RunResult['targets'][number]) =>
        `${t.kubernetes!.node} × RuntimeClass ${t.kubernetes!.runtimeClass} (handler ${t.handler}) · kubelet ${t.kubernetes!.kubeletVersion}`;
      const list = await visit('/runs/');
      for (const { run } of podRuns) {
        const row = list.page.locator('table.runs tbody tr', {
          has: list.page.locator(`a:text-is("${run.runId}")`),
        });
        const text = (await row.locator('td').nth(5).textContent())!.replace(/\s+/g, ' ');
        for (const t of run.targets) expect(text).toContain(`${t.id} (${label(t)}, transport kubernetes)`);
      }
      expect(list.problems).toEqual([]);
      await list.page.close();
      // the matrix: one column per target id, from the newest file (of equal start times, the later in load order)
      const matrix = await visit('/overview/');
      const newest = newestPerHostAndTarget(runs);
      for (const { run } of podRuns) {
        const host = hostClassOf(run.host);
        const section = matrix.page.locator('section[data-host]', {
          has: matrix.page.locator('h2', { hasText: host }),
        });
        for (const t of run.targets) {
          const shown = newest
            .get(host)!
            .get(t.id)!
            .targets.find((x) => x.id === t.id)!;
          const th = section.locator(`thead th[data-combo="${t.id}"]`);
          const text = (await th.textContent())!.replace(/\s+/g, ' ');
          expect(text).toContain(`${shown.kubernetes!.node} × ${shown.kubernetes!.runtimeClass}`);
          expect(text).toContain(`handler ${shown.handler}`);
          expect(text).toContain(`transport kubernetes · kubelet ${shown.kubernetes!.kubeletVersion}`);
        }
      }
      expect(matrix.problems).toEqual([]);
      await matrix.page.close();
    },
    BUDGET,
  );

  test('no page ships more than 150 KB of gzip JavaScript or 300 KB of gzip HTML; one run page for all runs', () => {
    const pages = measurePages(outDir);
    expect(pages.length).toBeGreaterThan(5);
    for (const p of pages) {
      expect(p.gzipBytes, p.page).toBeLessThanOrEqual(150 * 1024);
      expect(p.htmlGzipBytes, p.page).toBeLessThanOrEqual(300 * 1024);
    }
    // one page draws every run from its JSON file, however many runs there are
    expect(pages.filter((p) => p.page.startsWith('/run/')).map((p) => p.page)).toEqual(['/run/']);
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

describe('a runc release that slowed CreateContainer down (home and Regressions page)', () => {
  // Eleven nights of one host class: 50 ms on runc 1.1.5 for eight, then 80 ms from night 9 on,
  // when runc became 1.3.6 (in the target and in the run's components). Expectations are read
  // from these files here, not from the gate.
  const CENTERS = [50, 50.5, 49.5, 50.2, 49.8, 50.1, 50.3, 49.9, 80, 80.5, 79.6];
  let stepDir: string;
  let stepServer: StaticServer;
  let files: RunResult[];

  beforeAll(async () => {
    stepDir = await mkdtemp(join(tmpdir(), 'rb-site-step-'));
    files = CENTERS.map((center, i) => {
      const day = String(i + 1).padStart(2, '0');
      const runc = i >= 8 ? '1.3.6' : '1.1.5';
      const run = makeRun(`202611${day}T030000Z-000000${day}`, `2026-11-${day}T03:00:00Z`, [
        { oci: 'runc', ociVersion: runc, samples: spread(center) },
      ]);
      run.components = [...run.components, { name: 'runc', role: 'oci', version: runc }];
      return run;
    });
    for (const run of files) {
      const dir = join(stepDir, 'data', 'runs', '2026', '11', run.startedAt.slice(8, 10));
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${run.runId}.json`), serializeResult(run));
    }
    const build = await buildSite(join(stepDir, 'data'), join(stepDir, 'dist'));
    if (build.code !== 0) throw new Error(`astro build failed:\n${build.output.slice(-3000)}`);
    stepServer = await serveStatic(join(stepDir, 'dist'));
  }, BUDGET);

  afterAll(async () => {
    await stepServer?.close();
    if (stepDir) await rm(stepDir, { recursive: true, force: true });
  });

  /** Component versions that differ between two result files, target versions included. */
  const changed = (a: RunResult, b: RunResult): string[] => {
    const versions = (r: RunResult) => {
      const m = new Map(r.components.map((c) => [c.name, c.version]));
      for (const t of r.targets) m.set(t.cri.name, t.cri.version).set(t.oci.name, t.oci.version);
      return m;
    };
    const [va, vb] = [versions(a), versions(b)];
    return [...new Set([...va.keys(), ...vb.keys()])]
      .sort()
      .filter((n) => va.get(n) !== vb.get(n))
      .map((n) => `${n} ${va.get(n)} → ${vb.get(n)}`);
  };
  // the step: ratio of the geometric means of the nightly medians after and before it
  const gm = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
  const stepShown = (text: string) =>
    Number(/step ([+−][\d.]+) %|· ([+−][\d.]+) %/.exec(text)!.slice(1).find(Boolean)!.replace('−', '-')) /
    100;

  async function open(path: string, width: number): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: width > 500 ? 900 : 844 } });
    page.setDefaultTimeout(120_000);
    await page.goto(`${stepServer.url}${path}`, { waitUntil: 'load' });
    return page;
  }

  test(
    'home: the ongoing regression shows its change point night, the step and "runc 1.1.5 → 1.3.6"',
    async () => {
      const at = files[8]!;
      const expectedVersions = changed(files[7]!, at).join('; ');
      expect(expectedVersions).toBe('runc 1.1.5 → 1.3.6');
      for (const width of WIDTHS) {
        const page = await open('/', width);
        const rows = await tableRows(page, 'table.gate-rows');
        expect(rows).toHaveLength(1);
        const cell = rows[0]!['Change point · step [95 % CI]']!;
        expect(cell).toContain(at.startedAt.slice(0, 10));
        expect(Math.abs(stepShown(cell) - (gm(CENTERS.slice(8)) / gm(CENTERS.slice(0, 8)) - 1))).toBeLessThan(
          0.0011,
        );
        expect(rows[0]!['Versions changed there']).toBe(expectedVersions);
        await expect(page.locator('table.gate-rows td a').first().getAttribute('href')).resolves.toBe(
          `/run/?id=${at.runId}`,
        );
        await expect(page.locator('.coverage-line').first().textContent()).resolves.toContain(
          `All ${files.at(-1)!.results.length} row checked`,
        );
        await expectReadable(page, `step site / at ${width} px`);
        await shoot(page, `status-step-${width}`);
        await page.close();
      }
    },
    BUDGET,
  );

  test(
    'Regressions page: each flagged night names the change point, and coverage adds up per night',
    async () => {
      for (const width of WIDTHS) {
        const page = await open('/regressions/', width);
        const rows = await page.$$eval('table.regressions tbody tr', (trs) =>
          trs.map((tr) => ({
            cp: tr.querySelector('td.change-point a')?.getAttribute('href') ?? null,
            versions: tr.querySelector('td.versions-changed')!.textContent!.trim(),
          })),
        );
        // nights 9 (new), 10 and 11 (ongoing): all point at night 9 and its runc release
        expect(rows).toEqual(
          [0, 1, 2].map(() => ({
            cp: `/run/?id=${files[8]!.runId}`,
            versions: changed(files[7]!, files[8]!).join('; '),
          })),
        );
        // one row a night: night 1 has no earlier run, nights 2 and 3 fewer than three before them
        const text = (await page.locator('.coverage-line').textContent())!;
        expect(text).toContain(
          `${files.length} runs checked, 3 findings. Of their ${files.length} rows, ${files.length - 3} got a verdict`,
        );
        const reasons = await page.locator('ul.not-checked li').allTextContents();
        expect(reasons.map((r) => r.replace(/\s+/g, ' ').trim()).sort()).toEqual([
          '1 not checked: no earlier run of this host class',
          '2 not checked: fewer than 3 baseline runs',
        ]);
        await expectReadable(page, `step site /regressions/ at ${width} px`);
        await shoot(page, `regressions-step-${width}`);
        await page.close();
      }
    },
    BUDGET,
  );
});
