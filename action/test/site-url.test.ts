// The site pages the action links to are the ones the site builds: the page paths come from one
// function (runner/src/results/site-path.ts), checked here against the site's route list
// (site/src/pages) and against the slugs the site's own index builder gives the metrics of data/.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { bisectionId } from '@runtime-bench/runner';
import { readHistoryDir } from '@runtime-bench/runner/history';
import { bisectionPagePath, metricPagePath, metricSlug, sitePageUrl } from '@runtime-bench/runner/site-paths';
import { buildIndex } from '../../site/src/lib/index-builder.ts';
import { loaded } from '../../site/test/lib/fixtures.ts';
import { sampleBisectReport } from '../../site/test/lib/bisection-fixture.ts';
import { DATA_RUNS } from './support/release-regression.ts';

const PAGES = join(import.meta.dirname, '../../site/src/pages');

/** Each page file of the site as its route: the file, and a pattern of the paths it builds. */
async function routeList(): Promise<{ file: string; pattern: RegExp }[]> {
  const files = (await readdir(PAGES, { recursive: true })).filter((f) => f.endsWith('.astro'));
  return files.map((file) => {
    const route = file
      .replace(/\.astro$/, '')
      .replace(/(^|\/)index$/, '')
      .split('/')
      .map((part) =>
        part.startsWith('[...') ? '(.+)' : part.startsWith('[') ? '([^/]+)' : part.replace(/[.]/g, '\\.'),
      )
      .join('/');
    return { file, pattern: new RegExp(`^${route}${route ? '/' : ''}$`) };
  });
}

/** The page files a path is built by (static routes before dynamic ones, as Astro ranks them). */
async function routesOf(path: string): Promise<string[]> {
  const matches = (await routeList()).filter((r) => r.pattern.test(path)).map((r) => r.file);
  const fixed = matches.filter((f) => !f.includes('['));
  return fixed.length > 0 ? fixed : matches;
}

describe('site page paths', () => {
  test('the route list is the site’s: it has the benchmark and bisection pages', async () => {
    const files = (await routeList()).map((r) => r.file);
    expect(files).toContain(join('benchmark', '[...slug].astro'));
    expect(files).toContain(join('bisect', '[id].astro'));
  });

  test('every metric of data/ links to the page the site builds for it, under the benchmark route', async () => {
    const { entries } = await readHistoryDir(DATA_RUNS);
    const index = buildIndex(loaded(...entries.map((e) => e.run)));
    expect(index.metrics.length).toBeGreaterThan(10);
    for (const m of index.metrics) {
      const path = metricPagePath(m.benchmark, m.metric, m.unit);
      expect(path, `${m.benchmark} ${m.metric}`).toBe(`benchmark/${m.slug}/`);
      expect(await routesOf(path), path).toEqual([join('benchmark', '[...slug].astro')]);
    }
  });

  test('a metric whose name slugs like an earlier one of the benchmark gets its unit, as the site names it', () => {
    const first = metricSlug('b', 'Start Container', 'ms');
    expect(first).toBe('b/start-container');
    expect(metricSlug('b', 'start_container', 'bytes', new Set([first]))).toBe('b/start-container-bytes');
  });

  test('a bisection report links to its page under the bisection route', async () => {
    const id = bisectionId(sampleBisectReport());
    const path = bisectionPagePath(id);
    expect(path).toBe(`bisect/${id}/`);
    expect(await routesOf(path)).toEqual([join('bisect', '[id].astro')]);
  });

  test('page URLs keep the site’s base path, with or without its trailing slash', () => {
    const path = 'benchmark/operations.container.lifecycle/startcontainer/';
    for (const base of ['https://org.github.io/runtime-bench', 'https://org.github.io/runtime-bench/'])
      expect(sitePageUrl(base, path)).toBe(`https://org.github.io/runtime-bench/${path}`);
    expect(sitePageUrl('https://bench.example.org', path)).toBe(`https://bench.example.org/${path}`);
    expect(() => sitePageUrl('ftp://x/', path)).toThrow(/not an http\(s\) address/);
  });
});
