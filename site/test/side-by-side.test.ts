// Version changes on the site come from runs that measured both versions side by side: on files
// built for the purpose (test/lib/side-by-side-data.ts: nightly runs, a containerd sweep, a declared
// runc version change, a version measured alone) and on a copy of the repository's data/. Builds
// the real site and drives Debian's chromium; every expectation is worked out here from the files,
// never through the site's code.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { writeRuns } from '../bench/synthetic.ts';
import { expectReadable, openAt, type Visit } from './helpers/browser.ts';
import { serveBuiltSite, type ServedSite } from './helpers/site.ts';
import { parseShown, plainMedian, rankedRun, sameToShownPrecision, toBase } from './expect.ts';
import { AFTER, BEFORE, sideBySideRuns } from './lib/side-by-side-data.ts';

const BUDGET = 900_000;
const execFileAsync = promisify(execFile);
const CLI = fileURLToPath(new URL('../../runner/bin/runtime-bench.js', import.meta.url));
const CREATE = 'CreateContainer';
const LIFECYCLE = 'operations.container.lifecycle';

/** The CreateContainer samples of a target of a run, or undefined when it has none. */
function createSamples(run: RunResult, target: string): number[] | undefined {
  const r = run.results.find((x) => x.target === target && x.benchmark === LIFECYCLE && x.status === 'ok');
  const m = r?.metrics.find((x) => x.name === CREATE);
  return m && m.samples.length > 0 ? m.samples : undefined;
}

/** The run that measured two versions of a runtime together, and the change of their medians (%). */
function measuredTogether(
  runs: readonly RunResult[],
  kind: 'cri' | 'oci',
  from: string,
  to: string,
  partner: string,
): { run: RunResult; change: number } {
  const version = (t: RunResult['targets'][number]) => (kind === 'cri' ? t.cri.version : t.oci.version);
  const other = (t: RunResult['targets'][number]) =>
    kind === 'cri' ? `${t.oci.name} ${t.oci.version}` : `${t.cri.name} ${t.cri.version}`;
  const found = runs.flatMap((run) => {
    const a = run.targets.find(
      (t) => version(t) === from && other(t) === partner && createSamples(run, t.id),
    );
    const b = run.targets.find((t) => version(t) === to && other(t) === partner && createSamples(run, t.id));
    if (!a || !b) return [];
    const ma = plainMedian(createSamples(run, a.id)!);
    const mb = plainMedian(createSamples(run, b.id)!);
    return [{ run, change: (mb / ma - 1) * 100 }];
  });
  expect(found.length, `one run measured ${from} and ${to} together`).toBeGreaterThan(0);
  return found.at(-1)!;
}

/** The host class's section of a page. */
const section = (page: Page, label: string): Locator =>
  page.locator('section[data-host]', { has: page.locator('h2', { hasText: label }) });

/** A change as shown ("+4.9 %", "−13.9 %"), in percent. */
function shownChange(text: string): number {
  const m = /^([+−-])([\d.]+) %/.exec(text.trim());
  if (!m) throw new Error(`not a change: ${text}`);
  return (m[1] === '+' ? 1 : -1) * Number(m[2]);
}

/** Whether a shown change equals the expected one to the precision formatChange prints. */
function sameChange(shown: number, expected: number): boolean {
  const digits = Math.abs(expected) >= 100 ? 0 : Math.abs(expected) >= 1 ? 1 : 2;
  return Math.abs(shown - expected) <= 0.5 * 10 ** -digits + 1e-9;
}

/** The side-by-side row of a step on a runtime page's host section. */
async function sideBySideRow(host: Locator, from: string, to: string, partner: string): Promise<Locator> {
  const rows = host.locator(
    `tr[data-basis="side by side"][data-metric="${CREATE}"][data-from="${from}"][data-to="${to}"]`,
    { has: host.page().locator(`td:text-is("${partner}")`) },
  );
  await expect(rows.count(), `a side-by-side row ${from} → ${to} with ${partner}`).resolves.toBe(1);
  return rows.first();
}

describe('version changes on files built for the purpose', () => {
  const files = sideBySideRuns();
  const label = hostClassOf(files[0]!.host);
  let work: string;
  let site: ServedSite;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rb-site-side-by-side-'));
    await writeRuns(join(work, 'data'), files);
    site = await serveBuiltSite(join(work, 'data'), join(work, 'dist'));
  }, BUDGET);

  afterAll(async () => {
    await site?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const open = (path: string, width = 1366): Promise<Visit> =>
    openAt(site.browser, `${site.server.url}${path}`, width);

  test(
    'containerd page: 2.1.9 → 2.2.9 comes from the sweep that measured both, linked; 2.2.9 → 2.3.7 says "separate runs" and gives no change',
    async () => {
      const { page, problems } = await open('/runtime/cri/containerd/');
      const host = section(page, label);
      const sweep = measuredTogether(files, 'cri', '2.1.9', '2.2.9', 'runc 1.1.5');
      const row = await sideBySideRow(host, '2.1.9', '2.2.9', 'runc 1.1.5');
      await expect(row.getAttribute('data-run')).resolves.toBe(sweep.run.runId);
      await expect(row.locator(`td.run a:text-is("${sweep.run.runId}")`).count()).resolves.toBe(1);
      const shown = shownChange((await row.locator('td.change').textContent())!);
      expect(sameChange(shown, sweep.change), `${shown} % vs ${sweep.change} %`).toBe(true);

      // 2.2.9 and 2.3.7 never shared a run: listed as separate runs, without a change
      const together = files.some(
        (f) =>
          f.targets.some((t) => t.cri.version === '2.2.9') &&
          f.targets.some((t) => t.cri.version === '2.3.7'),
      );
      expect(together).toBe(false);
      await expect(
        host.locator('tr[data-basis="side by side"][data-from="2.2.9"][data-to="2.3.7"]').count(),
      ).resolves.toBe(0);
      const separate = host.locator('tr[data-basis="separate runs"][data-from="2.2.9"][data-to="2.3.7"]');
      await expect(separate.count()).resolves.toBe(1);
      const text = (await separate.textContent())!;
      expect(text).toContain('separate runs');
      expect(text).not.toMatch(/%/);
      expect(problems).toEqual([]);
      await expectReadable(page, '/runtime/cri/containerd/');
      await page.close();
    },
    BUDGET,
  );

  test(
    'runc page: the declared version change of a night is read from that night, and says it was declared',
    async () => {
      const night = files.find((f) =>
        f.config.versionChanges.some((c) => c.before === BEFORE && c.after === AFTER),
      )!;
      const before = night.targets.find((t) => t.id === BEFORE)!;
      const after = night.targets.find((t) => t.id === AFTER)!;
      const partner = `${before.cri.name} ${before.cri.version}`;
      const expected = measuredTogether([night], 'oci', before.oci.version, after.oci.version, partner);
      const { page, problems } = await open('/runtime/oci/runc/');
      const row = await sideBySideRow(section(page, label), before.oci.version, after.oci.version, partner);
      await expect(row.getAttribute('data-run')).resolves.toBe(night.runId);
      expect(await row.locator('td.run').textContent()).toContain('declared version change');
      const shown = shownChange((await row.locator('td.change').textContent())!);
      expect(sameChange(shown, expected.change), `${shown} % vs ${expected.change} %`).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    'matrix: a row ranks only the cells of one run; a cell of another run says "separate run"',
    async () => {
      const { page, problems } = await open('/overview/');
      const host = section(page, label);
      const columns = await host.locator('thead th[data-target]').evaluateAll((ths) =>
        ths.map((th) => ({
          target: (th as HTMLElement).dataset.target!,
          run: (th as HTMLElement).dataset.run!,
        })),
      );
      const cells = await host.locator(`tr[data-name="${CREATE}"] td`).evaluateAll((tds) =>
        tds.map((td) => ({
          run: (td as HTMLElement).dataset.run ?? '',
          kind: (td as HTMLElement).dataset.kind ?? '',
          median: td.querySelector('.median')?.textContent ?? '',
          rel: td.querySelector('.rel')?.textContent?.trim() ?? '',
        })),
      );
      expect(cells).toHaveLength(columns.length);
      // each cell is its column's newest run of the target, which measured CreateContainer
      const samples = columns.map((c, i) => {
        expect(cells[i]!.run, c.target).toBe(c.run);
        const run = files.find((f) => f.runId === c.run)!;
        expect(files.filter((f) => f.runId > run.runId && f.targets.some((t) => t.id === c.target))).toEqual(
          [],
        );
        return createSamples(run, c.target)!;
      });
      const ranked = rankedRun(columns.map((c) => c.run));
      expect(new Set(columns.map((c) => c.run)).size, 'the columns come from several runs').toBeGreaterThan(
        1,
      );
      const inRun = columns.map((c, i) => ({ c, i })).filter(({ c }) => c.run === ranked);
      const best = inRun.reduce((a, b) => (plainMedian(samples[b.i]!) < plainMedian(samples[a.i]!) ? b : a));
      columns.forEach((c, i) => {
        const cell = cells[i]!;
        expect(
          sameToShownPrecision(parseShown(cell.median)!, toBase(plainMedian(samples[i]!), 'ms')),
          c.target,
        ).toBe(true);
        if (c.run !== ranked) {
          expect(cell.kind, `${c.target}: measured in another run`).toBe('apart');
          expect(cell.rel).toBe('separate run');
        } else if (i === best.i) expect(cell.kind, c.target).toBe('best');
        else {
          expect(cell.kind, c.target).toBe('ratio');
          const ratio = Number(cell.rel.replace('×', ''));
          const expected = plainMedian(samples[i]!) / plainMedian(samples[best.i]!);
          expect(sameToShownPrecision(ratio, expected, 3), `${c.target} ${cell.rel}`).toBe(true);
        }
      });
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );
});

describe('version changes on a copy of the repository data', () => {
  const source = fileURLToPath(new URL('../../data', import.meta.url));
  let work: string;
  let site: ServedSite;
  let runs: RunResult[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rb-site-side-by-side-real-'));
    await cp(source, join(work, 'data'), { recursive: true });
    const dir = join(work, 'data', 'runs');
    const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.json'));
    runs = await Promise.all(
      files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as RunResult),
    );
    site = await serveBuiltSite(join(work, 'data'), join(work, 'dist'));
  }, BUDGET);

  afterAll(async () => {
    await site?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test(
    'regressions page: each declared version change is listed apart from the drift findings, with the verdicts check gives',
    async () => {
      const declared = runs.filter((r) => (r.config.versionChanges ?? []).length > 0);
      expect(declared.length, 'data/ holds nights with a declared version change').toBeGreaterThan(0);
      // What `runtime-bench check` itself says of each such night, against the same history.
      const expected = await Promise.all(
        declared.map(async (run) => {
          const file = join(
            work,
            'data',
            'runs',
            run.runId.slice(0, 4),
            run.runId.slice(4, 6),
            run.runId.slice(6, 8),
            `${run.runId}.json`,
          );
          const { stdout } = await execFileAsync(
            process.execPath,
            [CLI, 'check', '--history', join(work, 'data', 'runs'), '--current', file, '--json'],
            { maxBuffer: 64 * 1024 * 1024 },
          );
          const report = JSON.parse(stdout) as {
            versionChanges: {
              declared: boolean;
              after: string;
              decision: { metrics: { metric: string; verdict: string; change: number }[] } | null;
            }[];
          };
          return report.versionChanges
            .filter((v) => v.declared)
            .flatMap((v) =>
              v
                .decision!.metrics.filter((m) => m.verdict !== 'same')
                .map((m) => ({ runId: run.runId, after: v.after, ...m })),
            );
        }),
      ).then((x) => x.flat());
      expect(
        expected.some((m) => m.verdict === 'regression'),
        'a night of data/ decided a regression',
      ).toBe(true);
      const { page, problems } = await openAt(site.browser, `${site.server.url}/regressions/`, 1366);
      const rows = page.locator('table.version-changes tbody tr');
      await expect(rows.count()).resolves.toBe(expected.length);
      for (const m of expected) {
        const row = page.locator(
          // A run may declare several pairs: a row is one pair's metric.
          `table.version-changes tr[data-run="${m.runId}"][data-after="${m.after}"][data-metric="${m.metric}"]`,
        );
        await expect(row.getAttribute('data-verdict'), `${m.runId} ${m.metric}`).resolves.toBe(m.verdict);
        const shown = shownChange((await row.locator('td.change').textContent())!);
        expect(sameChange(shown, m.change * 100), `${m.metric}: ${shown} % vs ${m.change * 100} %`).toBe(
          true,
        );
      }
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    "containerd page: 2.1.9 → 2.2.9 CreateContainer is the sweep's own change, with the sweep linked",
    async () => {
      const sweep = measuredTogether(runs, 'cri', '2.1.9', '2.2.9', 'runc 1.1.5');
      const { page, problems } = await openAt(
        site.browser,
        `${site.server.url}/runtime/cri/containerd/`,
        1366,
      );
      const row = await sideBySideRow(
        section(page, hostClassOf(sweep.run.host)),
        '2.1.9',
        '2.2.9',
        'runc 1.1.5',
      );
      await expect(row.getAttribute('data-run')).resolves.toBe(sweep.run.runId);
      await expect(row.locator(`td.run a:text-is("${sweep.run.runId}")`).count()).resolves.toBe(1);
      const shown = shownChange((await row.locator('td.change').textContent())!);
      expect(sameChange(shown, sweep.change), `${shown} % vs ${sweep.change} %`).toBe(true);
      // the side-by-side measurement is a few per cent, nothing like the pooled runs' +174 %
      expect(Math.abs(shown)).toBeLessThan(10);
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );
});
