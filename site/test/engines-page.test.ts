// Engine targets on the site, built for real (astro build) from a data directory holding one
// SYNTHETIC run with CRI targets (containerd × runc, crun) and engine targets (Docker, Podman,
// nerdctl × runc, crun; nerdctl's crun another version than the CRI targets'), driven with
// Debian's chromium. Every expectation is computed here from the file itself (medians by sorting,
// the pairing rule of the issue: same OCI runtime name and version, CRI-level transport), never
// through the site's or the runner's aggregation. Heavy: run under the shared lock.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema, type Target } from '@runtime-bench/schemas';
import { writeRuns } from '../bench/synthetic.ts';
import { expectReadable, openAt } from './helpers/browser.ts';
import { serveBuiltSite, type ServedSite } from './helpers/site.ts';
import { parseShown, plainMedian, sameToShownPrecision, toBase } from './expect.ts';

const BUDGET = 900_000;
const WIDTHS = [1366, 390] as const;
const run = RunResultSchema.parse(
  JSON.parse(readFileSync(new URL('fixtures/engines/engines-run.json', import.meta.url), 'utf8')),
);
const engines = run.targets.filter((t) => t.transport === 'engine');
const criLevel = run.targets.filter((t) => t.transport === 'grpc' || t.transport === 'crictl');
/** The CRI-level target of the same OCI runtime name and version, if any. */
const criOf = (e: Target) =>
  criLevel.find((c) => c.oci.name === e.oci.name && c.oci.version === e.oci.version);
const samplesOf = (benchmark: string, target: string, metric: string) =>
  run.results
    .find((r) => r.benchmark === benchmark && r.target === target)
    ?.metrics.find((m) => m.name === metric);

let work: string;
let site: ServedSite;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-site-engines-'));
  const data = join(work, 'data');
  await writeRuns(data, [run]);
  site = await serveBuiltSite(data, join(work, 'dist'));
}, BUDGET);

afterAll(async () => {
  await site?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const visit = (path: string, width: number = WIDTHS[0]) =>
  openAt(site.browser, `${site.server.url}${path}`, width);

describe('engine targets on the site', () => {
  test.each(WIDTHS)(
    'the Engines page: each engine metric beside the CRI-level one of the same runtime version (%i px)',
    async (width) => {
      const { page, problems } = await visit('/engines/', width);
      const groups = await page.$$eval('section.engine-group', (sections) =>
        sections.map((s) => ({
          target: (s as HTMLElement).dataset.target!,
          beside: s.querySelector('p.beside')?.textContent?.trim() ?? null,
          noCri: s.querySelector('p.no-cri-level')?.textContent?.trim() ?? null,
          rows: Array.from(s.querySelectorAll('tbody tr')).map((tr) => ({
            pair: (tr as HTMLElement).dataset.pair!,
            engine: tr.querySelector('td.upper-median .median')?.textContent?.trim() ?? null,
            cri: tr.querySelector('td.cri-median .median')?.textContent?.trim() ?? null,
            criWhy: tr.querySelector('td.cri-median .side-missing')?.textContent?.trim() ?? null,
            difference: tr.querySelector('td.difference .estimate')!.textContent!.trim(),
            interval: tr.querySelector('td.difference .interval')!.textContent!.trim(),
          })),
        })),
      );
      expect(groups.map((g) => g.target).sort()).toEqual(engines.map((t) => t.id).sort());
      for (const g of groups) {
        const e = engines.find((t) => t.id === g.target)!;
        const c = criOf(e);
        const results = run.results.filter((r) => r.target === e.id);
        // one row per metric the engine target reported
        expect(g.rows.map((r) => r.pair).sort()).toEqual(
          results.flatMap((r) => r.metrics.map((m) => `${r.benchmark} · ${m.name}`)).sort(),
        );
        if (!c) {
          expect(g.noCri).toMatch(new RegExp(`No CRI-level run .* of ${e.oci.name} ${e.oci.version}`));
          for (const r of g.rows) {
            expect(r.cri).toBeNull();
            expect(r.difference).toBe('–');
          }
          continue;
        }
        expect(g.beside).toContain(`beside ${c.id}`);
        expect(g.beside).toContain('same run');
        for (const r of g.rows) {
          const [benchmark, metric] = r.pair.split(' · ') as [string, string];
          const em = samplesOf(benchmark, e.id, metric)!;
          const cm = samplesOf(benchmark.replace(/^engine\./, ''), c.id, metric)!;
          const engineMedian = toBase(plainMedian(em.samples), em.unit);
          const criMedian = toBase(plainMedian(cm.samples), cm.unit);
          const shownEngine = parseShown(r.engine!)!;
          const shownCri = parseShown(r.cri!)!;
          expect(
            sameToShownPrecision(shownEngine, engineMedian),
            `${e.id} ${r.pair} engine ${r.engine}`,
          ).toBe(true);
          expect(sameToShownPrecision(shownCri, criMedian), `${e.id} ${r.pair} CRI ${r.cri}`).toBe(true);
          const diff = parseShown(r.difference.replace(/^\+/, '').replace(/^±/, ''))!;
          expect(
            sameToShownPrecision(diff, engineMedian - criMedian),
            `${e.id} ${r.pair} ${r.difference}`,
          ).toBe(true);
          // the interval brackets the difference (n = 7 a side: a bootstrap interval exists)
          const [lo, hi] = r.interval
            .replace(/^\[|\]$/g, '')
            .split(', ')
            .map((v) => parseShown(v.replace(/^[+±]/, ''))!);
          expect(
            lo! <= diff * (1 + 1e-3) && diff <= hi! * (1 + 1e-3) + 1e-12,
            `${r.interval} vs ${r.difference}`,
          ).toBe(true);
        }
      }
      await expectReadable(page, `/engines/ at ${width} px`);
      expect(problems).toEqual([]);
      await page.close();
    },
    BUDGET,
  );

  test(
    'engine targets stand beside the CRI targets elsewhere: matrix, runtimes, runs, the home box',
    async () => {
      const matrix = await visit('/overview/');
      for (const t of run.targets) {
        const th = matrix.page.locator(`th[data-target="${t.id}"]`).first();
        const text = (await th.textContent())!;
        expect(text).toContain(`${t.oci.name} ${t.oci.version}`);
        if (t.transport === 'engine') expect(text).toContain(`engine ${t.cri.name} (CLI) · transport engine`);
        else expect(text).not.toContain('transport engine');
      }
      expect(matrix.problems).toEqual([]);
      await matrix.page.close();

      const runtimes = await visit('/runtimes/');
      const list = (kind: string) =>
        runtimes.page.$$eval(`section[data-kind="${kind}"] li a`, (as) =>
          as.map((a) => a.textContent!.trim()),
        );
      expect(await list('engine')).toEqual([...new Set(engines.map((t) => t.cri.name))].sort());
      expect(await list('cri')).toEqual([...new Set(criLevel.map((t) => t.cri.name))].sort());
      await runtimes.page.close();

      const docker = await visit('/runtime/cri/docker/');
      expect((await docker.page.locator('h1').textContent())!.trim()).toBe('docker (container engine)');
      expect(docker.problems).toEqual([]);
      await docker.page.close();

      const runs = await visit('/runs/');
      const cell = (await runs.page
        .locator('table.runs tbody tr')
        .first()
        .locator('td')
        .nth(5)
        .textContent())!;
      for (const t of engines)
        expect(cell).toContain(
          `${t.id} (${t.cri.name} ${t.cri.version} · ${t.oci.name} ${t.oci.version}, transport engine)`,
        );
      await runs.page.close();

      // an engine metric's page and its CRI-level counterpart's link to each other
      const slug = (benchmark: string) => `/benchmark/${benchmark}/latency-median/`;
      for (const [from, to] of [
        ['engine.startup.latency', 'startup.latency'],
        ['startup.latency', 'engine.startup.latency'],
      ] as const) {
        const b = await visit(slug(from));
        const link = b.page.locator('p.counterpart a').first();
        expect(await link.getAttribute('href')).toBe(slug(to));
        expect((await link.textContent())!.trim()).toBe(`${to} · latency_median`);
        // the engines' version charts name them as engines (the chart specs are in the page)
        const html = await b.page.content();
        for (const t of engines)
          expect(html.includes(`${t.cri.name} version (container engine)`)).toBe(from.startsWith('engine.'));
        expect(b.problems).toEqual([]);
        await b.page.close();
      }

      const home = await visit('/');
      expect(await home.page.locator('a.engine-link').count()).toBe(1);
      expect(await home.page.locator('header nav a[href="/engines/"]').count()).toBe(1);
      await home.page.close();
    },
    BUDGET,
  );
});
