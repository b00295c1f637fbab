// What the site's pages may say, on files built for the purpose (test/lib/issue42-data.ts, plus
// the engines fixture): history follows what was measured, a newer run without a benchmark never
// hides an older one that has it, handler versions sort as versions, a metric not measured is not
// "ok", a run with a target that failed everything is partial, the rename card agrees with the
// gate's counts above it, the noise panel prints no absurd detectable change, the Engines page
// stays short on a phone, and bisection pages say only what their steps support. Builds the real
// site and drives Debian's chromium; every expectation is worked out here from the files.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostClassOf, RunResultSchema, type BisectReport, type RunResult } from '@runtime-bench/schemas';
import { bisectionId, relativeBisectionPath } from '../../runner/src/results/bisection-path.ts';
import { writeRuns } from '../bench/synthetic.ts';
import { expectReadable, openAt, type Visit } from './helpers/browser.ts';
import { serveBuiltSite, type ServedSite } from './helpers/site.ts';
import { parseShown, plainMedian, sameToShownPrecision, toBase } from './expect.ts';
import {
  budgetBisection,
  failedBisection,
  issueRuns,
  NIGHTLY_WILD,
  RENAMED_FROM,
  RENAMED_TO,
  WILD_NIGHTS_TARGET,
} from './lib/issue42-data.ts';

const BUDGET = 900_000;
const WIDTHS = [1366, 390] as const;
const files: RunResult[] = issueRuns();
const engines = RunResultSchema.parse(
  JSON.parse(readFileSync(new URL('fixtures/engines/engines-run.json', import.meta.url), 'utf8')),
);
const reports: BisectReport[] = [budgetBisection(), failedBisection()];
const hostLabel = hostClassOf(files[0]!.host);
let work: string;
let site: ServedSite;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-issue42-'));
  const data = join(work, 'data');
  await writeRuns(data, [...files, engines]);
  for (const r of reports) {
    const path = join(data, 'bisections', relativeBisectionPath(r));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify(r));
  }
  site = await serveBuiltSite(data, join(work, 'dist'));
}, BUDGET);

afterAll(async () => {
  await site?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const open = (path: string, width: number = WIDTHS[0]): Promise<Visit> =>
  openAt(site.browser, `${site.server.url}${path}`, width);

interface ShownCell {
  criv: string;
  ociv: string;
  handler: string;
  run: string;
  median: string;
  text: string;
}

/** One matrix row of the issue's host class: per column, its header and the cell's run and text. */
function matrixRow(page: Page, benchmark: string, metric: string): Promise<ShownCell[]> {
  return page.$$eval(
    'section[data-host]',
    (sections, [label, benchmark, metric]) => {
      const s = sections.find((x) => x.querySelector('h2')!.textContent!.trim().startsWith(label!))!;
      const cols = Array.from(s.querySelectorAll<HTMLElement>('thead th[data-target]')).map((th) => ({
        criv: th.dataset.criv!,
        ociv: th.dataset.ociv!,
        handler: th.querySelector('.small')!.textContent!.trim(),
      }));
      const body = Array.from(s.querySelectorAll('tbody')).find(
        (b) => b.querySelector('tr.family a')!.textContent!.trim() === benchmark,
      )!;
      const tr = body.querySelector(`tr[data-name="${metric}"]`)!;
      return Array.from(tr.querySelectorAll<HTMLElement>('td')).map((td, i) => ({
        ...cols[i]!,
        run: td.dataset.run ?? '',
        median: td.querySelector('.median')?.textContent ?? '',
        text: td.textContent!.trim(),
      }));
    },
    [hostLabel, benchmark, metric],
  );
}

/** The newest run of each containerd version that measured a benchmark with status ok. */
function newestMeasured(benchmark: string): Map<string, { run: RunResult; target: string }> {
  const out = new Map<string, { run: RunResult; target: string }>();
  for (const f of files)
    for (const r of f.results) {
      const t = f.targets.find((x) => x.id === r.target)!;
      if (r.benchmark === benchmark && r.status === 'ok' && t.handler === 'runc')
        out.set(`containerd ${t.cri.version}`, { run: f, target: r.target });
    }
  return out;
}

describe('what the pages may say, on files built for the purpose', () => {
  test(
    'matrix: each containerd keeps its own column, a newer run without the benchmark hides nothing, handlers sort as versions, a metric not measured is not "ok"',
    async () => {
      const { page, problems } = await open('/overview/');
      const lifecycle = 'operations.container.lifecycle';
      const row = await matrixRow(page, lifecycle, 'CreateContainer');
      for (const [criv, { run, target }] of newestMeasured(lifecycle)) {
        const samples = run.results.find((r) => r.target === target && r.benchmark === lifecycle)!.metrics[0]!
          .samples;
        const cell = row.find((c) => c.criv === criv && c.ociv === 'runc 1.1.5' && !/runc-/.test(c.handler));
        expect(cell, `a column of ${criv}`).toBeDefined();
        expect(cell!.run, `${criv}: the newest run that measured it`).toBe(run.runId);
        expect(
          sameToShownPrecision(parseShown(cell!.median)!, toBase(plainMedian(samples), 'ms')),
          `${criv} ${cell!.median}`,
        ).toBe(true);
      }
      // RemoveContainer is defined, never reported: nothing was measured to be "ok"
      const remove = await matrixRow(page, lifecycle, 'RemoveContainer');
      for (const c of remove) expect(c.text, `${c.criv} RemoveContainer`).not.toMatch(/^ok$/);
      expect(remove.some((c) => c.text === 'not measured')).toBe(true);
      // handler columns in version order
      const handlerVersions = (await matrixRow(page, 'performance.cpu', 'total_time'))
        .filter((c) => /runc-\d/.test(c.handler))
        .map((c) => c.ociv.replace('runc ', ''));
      const numeric = (v: string) => v.split('.').map(Number);
      const sorted = [...handlerVersions].sort((a, b) => {
        const [x, y] = [numeric(a), numeric(b)];
        for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
        return 0;
      });
      expect(handlerVersions).toHaveLength(3);
      expect(handlerVersions).toEqual(sorted);
      expect(problems).toEqual([]);
      await expectReadable(page, '/overview/');
      await page.close();
    },
    BUDGET,
  );

  test(
    'runs: a run with a target that failed every benchmark is partial, not complete',
    async () => {
      const { page } = await open('/runs/');
      const partial = files.filter((f) =>
        f.targets.some((t) => {
          const own = f.results.filter((r) => r.target === t.id);
          return own.length > 0 && own.every((r) => r.status === 'failed');
        }),
      );
      expect(partial.length).toBeGreaterThan(0);
      for (const f of partial) {
        const status = (await page
          .locator('table.runs tbody tr', { has: page.locator(`a:text-is("${f.runId}")`) })
          .locator('td')
          .nth(4)
          .textContent())!.trim();
        expect(status, f.runId).toMatch(/^partial/);
        expect(status).not.toMatch(/complete/);
      }
      await page.close();
    },
    BUDGET,
  );

  test.each(WIDTHS)(
    'home: the rename card never says the gate has no baseline when the counts above it say otherwise (%i px)',
    async (width) => {
      const last = files.at(-1)!;
      expect(last.targets.some((t) => t.id === RENAMED_TO)).toBe(true);
      const { page } = await open('/', width);
      const box = page.locator('section.status', { has: page.locator('h2', { hasText: hostLabel }) });
      const card = (await box.locator(`ul.renamed li[data-target="${RENAMED_TO}"]`).textContent())!.replace(
        /\s+/g,
        ' ',
      );
      expect(card).toContain(RENAMED_FROM);
      const count = async (li: string) => Number(await box.locator(`${li} strong`).first().textContent());
      const withoutBaseline = await count('li.count-nobaseline');
      const checkedLine = (await box.locator('.coverage-line').first().textContent())!;
      const allChecked = /^All \d+ rows? checked/.test(checkedLine.trim());
      if (allChecked || withoutBaseline === 0) expect(card).not.toMatch(/no earlier run|no baseline/);
      expect(card).toMatch(/The gate (follows it|found no baseline)/);
      await expectReadable(page, `/ at ${width} px`);
      await page.close();
    },
    BUDGET,
  );

  test(
    'noise panel: no detectable change beyond +100 % is printed as a number',
    async () => {
      // the crun target's nightly medians differ from night to night by far more than a doubling,
      // so the smallest change a gate could tell from that noise is beyond +100 %
      const nightly = files
        .map((f) =>
          f.results.find((r) => r.target === WILD_NIGHTS_TARGET && r.benchmark === 'performance.cpu'),
        )
        .filter((r) => r !== undefined)
        .map((r) => plainMedian(r.metrics[0]!.samples))
        .slice(0, NIGHTLY_WILD.length);
      const jumps = nightly.slice(1).map((m, i) => Math.max(m / nightly[i]!, nightly[i]! / m));
      expect(Math.min(...jumps)).toBeGreaterThan(2);
      const { page } = await open('/benchmark/performance.cpu/total-time/');
      const cells = await page.$$eval('table.noise td.detectable', (tds) =>
        tds.map((td) => td.textContent!.trim()),
      );
      expect(cells.length).toBeGreaterThan(0);
      for (const c of cells) {
        const m = /^≥ ([\d.]+) %$/.exec(c);
        if (m) expect(Number(m[1]), c).toBeLessThanOrEqual(100);
      }
      const wild = (await page
        .locator(`table.noise tr[data-target="${WILD_NIGHTS_TARGET}"] td.detectable`)
        .first()
        .textContent())!.trim();
      expect(wild).toMatch(/^cannot detect/);
      await page.close();
    },
    BUDGET,
  );

  test.each(WIDTHS)(
    'home: the last-night pair survives a rename, the renamed target paired with its former id (%i px)',
    async (width) => {
      const last = files.at(-1)!;
      // the night before, by what was measured: the newest earlier run of the renamed target's former id
      const before = files.findLast((f) => f !== last && f.targets.some((t) => t.id === RENAMED_FROM))!;
      expect(last.targets.some((t) => t.id === RENAMED_FROM)).toBe(false);
      const { page, problems } = await open('/', width);
      const box = page.locator('section.status', { has: page.locator('h2', { hasText: hostLabel }) });
      const link = box.locator('a', { hasText: 'Last night vs the night before' });
      await expect(link.count()).resolves.toBe(1);
      await link.click();
      await page.waitForLoadState('load');
      const title = (await page.locator('h1').textContent())!;
      expect(title).toContain(`${before.runId} → ${last.runId}`);
      const headline = (await page.locator('body').textContent())!;
      expect(headline).toContain(`${RENAMED_TO} is paired with the baseline's ${RENAMED_FROM}`);
      // the renamed target's row: night 5's samples against night 7's
      const row = page.locator('table tbody tr', {
        has: page.locator(`td:text-is("${RENAMED_FROM} → ${RENAMED_TO}")`),
      });
      await expect(row.count()).resolves.toBeGreaterThan(0);
      const cells = (await row.first().locator('td, th').allTextContents()).map((t) => t.trim());
      const samplesOf = (f: RunResult, target: string) =>
        f.results.find((r) => r.target === target && r.benchmark === 'performance.cpu')!.metrics[0]!.samples;
      const shownMedian = (text: string) => parseShown(text.replace(/\s*\(n=\d+\)$/, ''))!;
      expect(cells.some((c) => c.startsWith('performance.cpu'))).toBe(true);
      const medians = cells.filter((c) => /\(n=\d+\)$/.test(c)).map(shownMedian);
      expect(medians).toHaveLength(2);
      expect(sameToShownPrecision(medians[0]!, plainMedian(samplesOf(before, RENAMED_FROM)))).toBe(true);
      expect(sameToShownPrecision(medians[1]!, plainMedian(samplesOf(last, RENAMED_TO)))).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    'engines: at 390 px each engine target is a line that opens, not a screen-high table',
    async () => {
      const { page, problems } = await open('/engines/', 390);
      const groups = engines.targets.filter((t) => t.transport === 'engine');
      const heights = await page.$$eval('section.engine-group', (ss) =>
        ss.map((s) => (s as HTMLElement).getBoundingClientRect().height),
      );
      expect(heights).toHaveLength(groups.length);
      for (const h of heights) expect(h).toBeLessThanOrEqual(300);
      expect(problems).toEqual([]);
      await expectReadable(page, '/engines/ at 390 px');
      await page.close();
    },
    BUDGET,
  );

  test.each(WIDTHS)(
    'bisections say only what their data support (%i px)',
    async (width) => {
      for (const report of reports) {
        const { page, problems } = await open(`/bisect/${bisectionId(report)}/`, width);
        const headline = (await page.locator('.bisect-headline li').allTextContents()).map((l) => l.trim());
        expect(
          headline.some((l) => l.startsWith('first bad release')),
          `${report.outcome}: ${headline.join(' | ')}`,
        ).toBe(false);
        const good = report.steps.filter((s) => s.kind === 'candidate' && s.verdict === 'good');
        const bad = report.steps.filter((s) => s.kind === 'candidate' && s.verdict === 'bad');
        const lo = report.lastGoodRelease ?? good.at(-1)?.candidate.label ?? report.good;
        const hi = report.firstBadRelease ?? bad.at(-1)?.candidate.label ?? report.bad;
        expect(headline).toContain(
          `unfinished (${report.outcome === 'budget-exhausted' ? 'budget spent' : 'failed'}), narrowed to ${lo}..${hi}`,
        );
        const judged = headline.find((l) => l.startsWith('its steps judged good'))!;
        for (const s of good) expect(judged).toContain(s.candidate.label);
        for (const s of bad) expect(judged).toContain(s.candidate.label);
        // a verdict beside its interval: "same" with an interval that excludes 0 % never stands alone
        const verdicts = await page.$$eval('table.bisect-steps td[data-col="verdict"]', (tds) =>
          tds.map((td) => td.textContent!.trim()),
        );
        report.steps.forEach((s, i) => {
          const excludes = s.effect !== null && (s.effect.lower > 1 || s.effect.upper < 1);
          if (s.verdict === 'same' && excludes) {
            expect(verdicts[i]).not.toBe('same');
            expect(verdicts[i]).toContain('excludes 0 %');
          }
          if (s.verdict === 'differ' && !excludes) expect(verdicts[i]).toContain('holds 0 %');
        });
        const rows = await page.$$eval('table.bisect-steps tbody tr', (trs) =>
          trs.map((tr) => tr.getBoundingClientRect().height),
        );
        for (const h of rows) expect(h, `a step row at ${width} px`).toBeLessThanOrEqual(200);
        expect(problems).toEqual([]);
        await expectReadable(page, `bisection ${report.outcome} at ${width} px`);
        await page.close();
      }
    },
    BUDGET,
  );
});
