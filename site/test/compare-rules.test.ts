// The compare view keeps the matrix's rules and the runner's warnings, on files built for the
// purpose: the answers fixture (runsc ignores the CFS quota of limits.cpu.time) and a copy of
// one of its runs on a host with another core count (another host class). Builds the real site
// and drives Debian's chromium; expectations come from the files (test/expect.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { writeRuns } from '../bench/synthetic.ts';
import { expectReadable, openAt } from './helpers/browser.ts';
import { serveBuiltSite, type ServedSite } from './helpers/site.ts';
import { answerRuns, RENAMED_FROM } from './lib/answers-data.ts';
import { quotaEnforced } from './expect.ts';

const BUDGET = 900_000;
const answers = answerRuns();
const night = answers[2]!;
// the same night on a 2-core host: another host class, another run
const elsewhere: RunResult = {
  ...night,
  runId: night.runId.replace(/-a15e/, '-b25e'),
  host: { ...night.host, cpus: 2 },
};
let work: string;
let site: ServedSite;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-compare-'));
  await writeRuns(join(work, 'data'), [...answers, elsewhere]);
  site = await serveBuiltSite(join(work, 'data'), join(work, 'dist'));
}, BUDGET);

afterAll(async () => {
  await site?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function compared(query: string): Promise<{ page: Page; headline: string[]; rows: string[][] }> {
  const { page, problems } = await openAt(site.browser, `${site.server.url}/compare/?${query}`, 1366);
  await page.waitForSelector('table.compare tbody tr', { timeout: 120_000 });
  const headline = (await page.locator('.compare-headline li').allTextContents()).map((l) => l.trim());
  const rows = await page.$$eval('table.compare tbody tr', (trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent!.trim())),
  );
  expect(problems).toEqual([]);
  return { page, headline, rows };
}

describe('the compare view', () => {
  test(
    'a limit one side did not enforce is shown, never given a ratio or a verdict',
    async () => {
      const runsc = night.results.find(
        (r) => r.target === 'containerd/runsc' && r.benchmark === 'limits.cpu.time',
      )!;
      const runc = night.results.find((r) => r.target === RENAMED_FROM && r.benchmark === 'limits.cpu.time')!;
      expect(quotaEnforced(runsc)).toBe(false);
      expect(quotaEnforced(runc)).toBe(true);
      const q = new URLSearchParams({
        a: night.runId,
        at: RENAMED_FROM,
        b: night.runId,
        bt: 'containerd/runsc',
      });
      const { page, rows, headline } = await compared(q.toString());
      const limits = rows.filter((r) => r[0]!.startsWith('limits.cpu.time · '));
      expect(limits.length).toBe(runsc.metrics.length);
      for (const r of limits) {
        expect(r.at(-1), r[0]).toBe('not enforced');
        expect(r[4], r[0]).toBe('–');
        expect(r[5], r[0]).toBe('–');
      }
      expect(headline.join('\n')).toContain(`${limits.length} not compared`);
      await expectReadable(page, 'compare runc vs runsc');
      await page.close();
    },
    BUDGET,
  );

  test(
    'two runs of different host classes: every warning compare gives is on the page',
    async () => {
      expect(hostClassOf(night.host)).not.toBe(hostClassOf(elsewhere.host));
      const { page, headline } = await compared(
        new URLSearchParams({ a: night.runId, b: elsewhere.runId }).toString(),
      );
      const warnings = await page.locator('.compare-headline li.warning').allTextContents();
      expect(
        warnings.some((w) => /different host classes/.test(w)),
        headline.join('\n'),
      ).toBe(true);
      expect(
        warnings.some((w) => /different runs/.test(w)),
        headline.join('\n'),
      ).toBe(true);
      await page.close();
    },
    BUDGET,
  );
});
