// The site's answers on data built for the purpose (test/lib/answers-data.ts): results measured
// with other parameters are never compared or pooled, a limit a runtime ignored is "not enforced"
// and never "best", and a renamed target keeps its history. Builds the real site from those files
// and drives it with Debian's chromium; every expectation is worked out here from the files
// (test/expect.ts), never through the site's code. Heavy: run under the shared lock.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { writeRuns, writeSyntheticRuns } from '../bench/synthetic.ts';
import { buildSite } from './helpers/build.ts';
import { expectReadable, launchChromium, openAt, type Visit } from './helpers/browser.ts';
import { serveStatic, type StaticServer } from './helpers/serve.ts';
import { answerRuns, RENAMED_FROM, RENAMED_TO } from './lib/answers-data.ts';
import {
  parameterKey,
  parseShown,
  plainMedian,
  quotaEnforced,
  rankedRun,
  sameMeasured,
  sameToShownPrecision,
  toBase,
} from './expect.ts';

const BUDGET = 900_000;
const WIDTHS = [1366, 390] as const;
let work: string;
let server: StaticServer;
let browser: Browser;
let files: RunResult[];
let hostLabel: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-answers-'));
  files = answerRuns();
  hostLabel = hostClassOf(files[0]!.host);
  await writeRuns(join(work, 'data'), files);
  const build = await buildSite(join(work, 'data'), join(work, 'dist'));
  if (build.code !== 0) throw new Error(`astro build failed:\n${build.output.slice(-3000)}`);
  server = await serveStatic(join(work, 'dist'));
  browser = await launchChromium();
}, BUDGET);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function open(path: string, width: number = WIDTHS[0]): Promise<Visit> {
  return openAt(browser, `${server.url}${path}`, width);
}

const resultOf = (runId: string, target: string, benchmark: string) =>
  files.find((f) => f.runId === runId)!.results.find((r) => r.target === target && r.benchmark === benchmark);

interface ShownCell {
  run: string;
  target: string;
  kind: string;
  median: string;
  rel: string;
  hidden: boolean;
}

/** The matrix row of one metric of the answers host: a cell per column, with its run and target. */
async function matrixRow(page: Page, benchmark: string, metric: string): Promise<ShownCell[]> {
  return page.$$eval(
    'section[data-host]',
    (sections, [label, benchmark, metric]) => {
      const s = sections.find((x) => x.querySelector('h2')!.textContent!.trim().startsWith(label!))!;
      const cols = Array.from(s.querySelectorAll<HTMLElement>('thead th[data-target]')).map((th) => ({
        run: th.dataset.run!,
        target: th.dataset.target!,
        hidden: th.hidden,
      }));
      const body = Array.from(s.querySelectorAll('tbody')).find(
        (b) => b.querySelector('tr.family a')!.textContent!.trim() === benchmark,
      )!;
      const tr = body.querySelector(`tr[data-name="${metric}"]`)!;
      return Array.from(tr.querySelectorAll<HTMLElement>('td')).map((td, i) => ({
        ...cols[i]!,
        kind: td.dataset.kind ?? '',
        median: td.querySelector('.median')?.textContent ?? '',
        rel: td.querySelector('.rel')?.textContent?.trim() ?? '',
      }));
    },
    [hostLabel, benchmark, metric],
  );
}

describe('the site answers right on results built for the purpose', () => {
  test(
    'matrix: other parameters and other runs are never ranked; a quota a runtime ignored is "not enforced", never best',
    async () => {
      for (const width of WIDTHS) {
        const { page, problems } = await open('/overview/', width);
        // performance.cpu · total_time: the row compares the parameters most of its cells have
        const cpu = await matrixRow(page, 'performance.cpu', 'total_time');
        const params = cpu.map((c) => parameterKey(resultOf(c.run, c.target, 'performance.cpu')!.parameters));
        const counts = new Map<string, number>();
        for (const p of params) counts.set(p, (counts.get(p) ?? 0) + 1);
        const majority = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
        const apart = cpu.filter((_, i) => params[i] !== majority);
        expect(apart.length, 'the files hold a cell with other parameters').toBeGreaterThan(0);
        for (const c of apart) {
          expect(c.kind, `${c.target}: other parameters`).toBe('apart');
          expect(c.rel).toBe('parameters differ');
        }
        // of the cells with those parameters, only those of one run are ranked: the run most come from
        const sameParams = cpu.filter((_, i) => params[i] === majority);
        const ranked = rankedRun(sameParams.map((c) => c.run));
        const compared = sameParams.filter((c) => c.run === ranked);
        for (const c of compared) expect(c.kind, c.target).not.toBe('apart');
        for (const c of sameParams.filter((x) => x.run !== ranked)) {
          expect(c.kind, `${c.target}: another run`).toBe('apart');
          expect(c.rel).toBe('separate run');
        }
        const value = (c: ShownCell) => {
          const r = resultOf(c.run, c.target, 'performance.cpu')!;
          return toBase(plainMedian(r.metrics[0]!.samples), 's');
        };
        for (const c of cpu)
          expect(sameToShownPrecision(parseShown(c.median)!, value(c)), c.target).toBe(true);
        const best = cpu.filter((c) => c.kind === 'best');
        expect(best).toHaveLength(1);
        expect(compared).toContain(best[0]);
        for (const c of compared) if (c !== best[0]) expect(value(c)).toBeGreaterThan(value(best[0]!));

        // limits.cpu.time · total_time: runtimes whose counters show the quota ignored stand apart
        const limits = (await matrixRow(page, 'limits.cpu.time', 'total_time')).filter((c) =>
          resultOf(c.run, c.target, 'limits.cpu.time'),
        );
        const enforced = limits.map((c) => quotaEnforced(resultOf(c.run, c.target, 'limits.cpu.time')!));
        expect(enforced.filter((e) => e === false).length, 'the files hold an ignored quota').toBeGreaterThan(
          0,
        );
        const limitsRun = rankedRun(limits.filter((_, i) => enforced[i] !== false).map((c) => c.run));
        limits.forEach((c, i) => {
          if (enforced[i] === false) {
            expect(c.kind, `${c.target}: quota ignored`).toBe('apart');
            expect(c.rel).toBe('not enforced');
          } else if (c.run !== limitsRun) {
            expect(c.kind, `${c.target}: another run`).toBe('apart');
            expect(c.rel).toBe('separate run');
          } else expect(c.kind, c.target).not.toBe('apart');
        });
        const limitBest = limits.filter((c) => c.kind === 'best');
        expect(limitBest).toHaveLength(1);
        const secs = (c: ShownCell) =>
          plainMedian(
            resultOf(c.run, c.target, 'limits.cpu.time')!.metrics.find((m) => m.name === 'total_time')!
              .samples,
          );
        expect(enforced[limits.indexOf(limitBest[0]!)]).toBe(true);
        limits.forEach((c, i) => {
          if (enforced[i] === true && c.run === limitsRun && c !== limitBest[0])
            expect(secs(c)).toBeGreaterThan(secs(limitBest[0]!));
        });
        expect(problems).toEqual([]);
        await expectReadable(page, `/overview/ at ${width} px`);
        await page.close();
      }
    },
    BUDGET,
  );

  test(
    'a renamed target keeps its column, and the home page says the gate sees it as new by name only',
    async () => {
      const { page } = await open('/overview/');
      const cells = await matrixRow(page, 'performance.cpu', 'total_time');
      // expected columns: per thing measured (CRI runtime, handler, OCI runtime), its newest run
      const newest = new Map<string, { run: string; target: string }>();
      for (const f of files)
        for (const t of f.targets) {
          const key = `${t.cri.name} ${t.handler} ${t.oci.name}`;
          newest.set(key, { run: f.runId, target: t.id });
        }
      expect(cells.map((c) => `${c.run} ${c.target}`).sort()).toEqual(
        [...newest.values()].map((c) => `${c.run} ${c.target}`).sort(),
      );
      expect(cells.map((c) => c.target)).not.toContain(RENAMED_FROM);
      await page.close();

      const last = files.at(-1)!;
      const renamed = last.targets.find((t) => t.id === RENAMED_TO)!;
      const earlier = files.slice(0, -1).filter((f) => f.targets.some((t) => sameMeasured(t, renamed)));
      expect(earlier.length).toBeGreaterThan(0);
      for (const width of WIDTHS) {
        const home = await open('/', width);
        const hint = (await home.page.locator(`ul.renamed li[data-target="${RENAMED_TO}"]`).textContent())!;
        expect(hint.replace(/\s+/g, ' ')).toContain(`${earlier.length} earlier run(s)`);
        expect(hint).toContain(RENAMED_FROM);
        await expectReadable(home.page, `/ at ${width} px`);
        await home.page.close();
      }
    },
    BUDGET,
  );

  test(
    "version trend: samples of other parameters are never pooled; the noise panel shows each line's run-to-run variation",
    async () => {
      const { page: list } = await open('/benchmarks/');
      const path = (await list
        .locator('a[href*="benchmark/performance.cpu/"]')
        .first()
        .getAttribute('href'))!;
      await list.close();
      const { page } = await open(path);
      const rows = await page.$$eval('section[data-host] details table tbody tr', (trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent!.trim())),
      );
      // crun 1.28: one pool per parameter set, each the median of its own samples
      const pools = new Map<string, number[]>();
      for (const f of files)
        for (const r of f.results)
          if (
            r.benchmark === 'performance.cpu' &&
            f.targets.find((t) => t.id === r.target)!.oci.name === 'crun'
          ) {
            const k = parameterKey(r.parameters);
            pools.set(k, [...(pools.get(k) ?? []), ...r.metrics[0]!.samples]);
          }
      const shown = rows.filter((r) => r[0] === 'crun' && r[2] === '1.28');
      expect(shown).toHaveLength(pools.size);
      const expected = [...pools.values()].map((s) => toBase(plainMedian(s), 's')).sort((a, b) => a - b);
      const got = shown.map((r) => parseShown(r[3]!)!).sort((a, b) => a - b);
      got.forEach((g, i) =>
        expect(sameToShownPrecision(g, expected[i]!), `${g} vs ${expected[i]}`).toBe(true),
      );
      expect(shown.map((r) => Number(r[5]!.split(' ')[0])).sort()).toEqual(
        [...pools.values()].map((s) => s.length).sort(),
      );
      // the noise panel: run-to-run variation of the run medians of each line, from the files
      const noise = await page.$$eval('section[data-host] table.noise tbody tr', (trs) =>
        trs.map((tr) => ({
          target: (tr as HTMLElement).dataset.target!,
          parameters: tr.querySelector('td')!.textContent!.trim(),
          runs: Number(tr.querySelectorAll('td')[1]!.textContent),
          variation: tr.querySelector('td.variation')!.textContent!.trim(),
        })),
      );
      const crunRuns = files.filter((f) =>
        f.results.some(
          (r) =>
            r.target === 'containerd/crun' && r.benchmark === 'performance.cpu' && r.parameters.threads === 1,
        ),
      );
      const logs = crunRuns.map((f) =>
        Math.log(
          plainMedian(
            f.results.find((r) => r.target === 'containerd/crun' && r.benchmark === 'performance.cpu')!
              .metrics[0]!.samples,
          ),
        ),
      );
      const center = plainMedian(logs);
      const variation = Math.exp(1.4826 * plainMedian(logs.map((l) => Math.abs(l - center)))) - 1;
      const row = noise.find((r) => r.target === 'containerd/crun' && r.parameters.includes('threads 1'))!;
      expect(row.runs).toBe(crunRuns.length);
      // shown to a tenth of a percent
      const shownVariation = Number(/±([\d.]+) %/.exec(row.variation)![1]) / 100;
      expect(Math.abs(shownVariation - variation)).toBeLessThanOrEqual(0.0005 + 1e-12);
      await expectReadable(page, path);
      await page.close();
    },
    BUDGET,
  );

  test(
    'compare: last night against the night before says "parameters differ" instead of a verdict',
    async () => {
      const [before, after] = files.slice(-2) as [RunResult, RunResult];
      const { page: list } = await open('/compare/');
      const path = (await list.locator('a[href*="latest-vs-previous"]').first().getAttribute('href'))!;
      await list.close();
      for (const width of WIDTHS) {
        const { page } = await open(path, width);
        const rows = await page.$$eval('table.compare tbody tr', (trs) =>
          trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent!.trim())),
        );
        let differ = 0;
        for (const r of after.results) {
          const b = before.results.find((x) => x.target === r.target && x.benchmark === r.benchmark);
          if (!b) continue;
          const row = rows.find((x) => x[0]!.startsWith(`${r.benchmark} · total_time`) && x[1] === r.target)!;
          expect(row, `${r.benchmark} ${r.target}`).toBeDefined();
          if (parameterKey(b.parameters) !== parameterKey(r.parameters)) {
            differ++;
            expect(row.at(-1)).toBe('parameters differ');
          } else expect(row.at(-1)).not.toBe('parameters differ');
        }
        expect(differ).toBeGreaterThan(0);
        await expectReadable(page, `${path} at ${width} px`);
        await page.close();
      }
    },
    BUDGET,
  );

  test(
    'matrix: a filter recomputes best and ratios from what is shown, and "relative to" one column',
    async () => {
      // hide runc, the best of performance.cpu: the rest must be ranked among themselves
      const { page, problems } = await open('/overview/?oci=crun&oci=youki&oci=runsc');
      const visibleRow = async () =>
        (await matrixRow(page, 'performance.cpu', 'total_time')).filter((c) => !c.hidden);
      const seconds = (c: ShownCell) =>
        plainMedian(resultOf(c.run, c.target, 'performance.cpu')!.metrics[0]!.samples);
      const params = (c: ShownCell) => parameterKey(resultOf(c.run, c.target, 'performance.cpu')!.parameters);
      const shown = await visibleRow();
      expect(shown.map((c) => c.target).sort()).toEqual(
        files
          .flatMap((f) => f.targets)
          .filter((t) => ['crun', 'youki', 'runsc'].includes(t.oci.name))
          .map((t) => t.id)
          .filter((id, i, all) => all.indexOf(id) === i)
          .sort(),
      );
      const counts = new Map<string, number>();
      for (const c of shown) counts.set(params(c), (counts.get(params(c)) ?? 0) + 1);
      const majority = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
      const compared = shown.filter((c) => params(c) === majority);
      const best = compared.reduce((a, b) => (seconds(b) < seconds(a) ? b : a));
      expect(shown.filter((c) => c.kind === 'best').map((c) => c.target)).toEqual([best.target]);
      for (const c of compared)
        if (c !== best) {
          const ratio = Number(c.rel.replace('×', ''));
          expect(sameToShownPrecision(ratio, seconds(c) / seconds(best), 3), `${c.target} ${c.rel}`).toBe(
            true,
          );
        }
      // relative to the slowest compared column: it is the reference, the others' ratios are to it
      const reference = compared.reduce((a, b) => (seconds(b) > seconds(a) ? b : a));
      const combo = await page.$eval(
        `section[data-host] thead th[data-target="${reference.target}"][data-run="${reference.run}"]`,
        (th) => (th as HTMLElement).dataset.combo!,
      );
      const section = page.locator('section[data-host]', { has: page.locator('h2', { hasText: hostLabel }) });
      await section.locator('select.relative-to').selectOption(combo);
      // the row is recomputed in the browser once the select changes
      await page.waitForSelector('td[data-kind="reference"]', { timeout: 120_000 });
      const relative = await visibleRow();
      expect(relative.find((c) => c.target === reference.target)!.kind).toBe('reference');
      for (const c of relative)
        if (c.target !== reference.target && params(c) === majority) {
          const ratio = Number(c.rel.replace('×', ''));
          expect(
            sameToShownPrecision(ratio, seconds(c) / seconds(reference), 3),
            `${c.target} ${c.rel}`,
          ).toBe(true);
        }
      expect(problems).toEqual([]);
      await expectReadable(page, '/overview/ filtered');
      await page.close();
    },
    BUDGET,
  );
});

describe('pages that scale: 300 synthetic result files', () => {
  const FILES = 300;
  const MAX_RUNTIME_PAGE = 15_000;
  const MIN_PLOT = 150;
  let dir: string;
  let big: StaticServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rb-site-300-'));
    await writeSyntheticRuns(join(dir, 'data'), FILES);
    const build = await buildSite(join(dir, 'data'), join(dir, 'dist'));
    if (build.code !== 0) throw new Error(`astro build failed:\n${build.output.slice(-3000)}`);
    big = await serveStatic(join(dir, 'dist'));
  }, BUDGET);

  afterAll(async () => {
    await big?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function page(path: string, width: number): Promise<Page> {
    const p = await browser.newPage({ viewport: { width, height: width > 500 ? 900 : 844 } });
    p.setDefaultTimeout(120_000);
    await p.goto(`${big.url}${path}`, { waitUntil: 'load' });
    await p.waitForLoadState('networkidle');
    return p;
  }

  const plotHeights = async (p: Page) => {
    await p.waitForFunction(
      () => Array.from(document.querySelectorAll<HTMLElement>('rb-chart')).every((c) => c.dataset.plotHeight),
      null,
      { timeout: 120_000 },
    );
    return p.$$eval('rb-chart', (cs) => cs.map((c) => Number((c as HTMLElement).dataset.plotHeight)));
  };

  test(
    `runtime pages are at most ${MAX_RUNTIME_PAGE} px tall at 1366 px; every chart's plot area is at least ${MIN_PLOT} px at 390 px`,
    async () => {
      const list = await page('/runtimes/', 1366);
      const links = await list.$$eval('main a[href*="/runtime/"]', (as) =>
        as.map((a) => (a as HTMLAnchorElement).pathname),
      );
      await list.close();
      expect(links.length).toBeGreaterThan(0);
      for (const path of links) {
        const p = await page(path, 1366);
        const height = await p.evaluate(() => document.documentElement.scrollHeight);
        console.info(`${path}: ${height} px tall at 1366 px (${FILES} files)`);
        expect(height, path).toBeLessThanOrEqual(MAX_RUNTIME_PAGE);
        await p.close();
      }
      const benchmarks = await page('/benchmarks/', 1366);
      const all = await benchmarks.$$eval('main li a[href*="/benchmark/"]', (as) =>
        as.map((a) => (a as HTMLAnchorElement).pathname),
      );
      await benchmarks.close();
      // one benchmark page per family (the first of each): every kind of chart, in bounded time
      const family = (path: string) => decodeURIComponent(path.split('/')[2]!).split('.')[0]!;
      const perFamily = all.filter((p, i) => all.findIndex((q) => family(q) === family(p)) === i);
      for (const path of [...links, ...perFamily]) {
        const p = await page(path, 390);
        const heights = await plotHeights(p);
        expect(heights.length, path).toBeGreaterThan(0);
        console.info(`${path}: plot areas at 390 px: ${heights.join(', ')} px`);
        for (const h of heights) expect(h, `${path}: plot area at 390 px`).toBeGreaterThanOrEqual(MIN_PLOT);
        await expectReadable(p, `${path} at 390 px`);
        await p.close();
      }
    },
    BUDGET,
  );
});
