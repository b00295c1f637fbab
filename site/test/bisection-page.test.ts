// A bisection report on the site: built for real (astro build) from a data directory holding a
// regression at runc 1.1.5 → 1.2.0 and a bisection of it, driven with Debian's chromium. The
// regression's row links to the bisection's page, and the page shows every step of the report;
// expectations are read from the report file here, never through the site's code. Heavy: run
// under the shared lock.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeRuns } from '../bench/synthetic.ts';
import { expectReadable, openAt } from './helpers/browser.ts';
import { serveBuiltSite, type ServedSite } from './helpers/site.ts';
import { regressionRuns, sampleBisectReport } from './lib/bisection-fixture.ts';

const BUDGET = 900_000;
const WIDTHS = [1366, 390] as const;
const report = sampleBisectReport();
// bisections/<UTC date of startedAt>/<UTC stamp>-<component>-<good>-<bad>-<metric>.json
const ID = '20261127T001500Z-runc-1.1.5-1.2.0-CreateContainer';
let work: string;
let site: ServedSite;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-bisect-'));
  const data = join(work, 'data');
  await writeRuns(
    data,
    regressionRuns().map((l) => l.run),
  );
  await mkdir(join(data, 'bisections', '2026', '11', '27'), { recursive: true });
  await writeFile(join(data, 'bisections', '2026', '11', '27', `${ID}.json`), JSON.stringify(report));
  site = await serveBuiltSite(data, join(work, 'dist'));
}, BUDGET);

afterAll(async () => {
  await site?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a bisection on the site', () => {
  test.each(WIDTHS)(
    'the regression links to its bisection, whose page shows every step (%i px)',
    async (width) => {
      const { page, problems } = await openAt(site.browser, `${site.server.url}/regressions/`, width);
      const link = page.locator('table.regressions a.bisection');
      expect(await link.count()).toBe(1);
      expect(await link.getAttribute('href')).toBe(`/bisect/${ID}/`);
      expect((await link.textContent())!.trim()).toBe(`bisection: ${report.firstBadCommit!.label}`);
      await link.click();
      await page.waitForURL(`**/bisect/${ID}/`);
      expect((await page.locator('h1').textContent())!.trim()).toBe(
        `Bisection: runc 1.1.5 → 1.2.0, ${report.metric}`,
      );
      const headline = await page.locator('.bisect-headline li').allTextContents();
      expect(headline[1]).toBe(`outcome: ${report.outcome} — ${report.message}`);
      const rows = await page.$$eval('table.bisect-steps tbody tr', (trs) =>
        trs.map((tr) => ({
          verdict: (tr as HTMLElement).dataset.verdict,
          version: tr.querySelector('td[data-col="version"]')!.textContent!.trim(),
          rounds: tr.querySelector('td[data-col="rounds"]')!.textContent!.trim(),
          runs: tr.querySelector('td[data-col="runs"]')!.textContent!.trim(),
        })),
      );
      expect(rows).toEqual(
        report.steps.map((s) => ({
          verdict: s.verdict,
          version: s.kind === 'ends' ? `${report.good} vs ${report.bad}` : s.candidate.label,
          rounds: String(s.rounds),
          runs: s.runIds.join(' '),
        })),
      );
      await expectReadable(page, `bisection page at ${width} px`);
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );
});
