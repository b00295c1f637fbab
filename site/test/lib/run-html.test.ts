import { expect, test } from 'vitest';
import { relativeRunPath } from '@runtime-bench/runner';
import { metricsTableHtml } from '../../src/lib/run-html.ts';
import { conventionalRunFile, RUN_ID, runPageHtml, runPagePath } from '../../src/lib/run-page.ts';
import { makeRun, spread } from './fixtures.ts';

test('the metrics table shows the median, the raw samples and escaped error messages', () => {
  const run = makeRun('20261101T000000Z-00000001', '2026-11-01T00:00:00Z', [
    { oci: 'runc', ociVersion: '1', samples: spread(50) },
  ]);
  const result = run.results[0]!;
  result.metrics[0]!.errors = { count: 2, messages: ['<timeout> after 2s'] };
  const html = metricsTableHtml(result);
  // the fixture's samples are milliseconds spread around 50
  expect(html).toContain('<td class="num median">50 ms</td>');
  expect(html).toContain(`${spread(50).join(', ')}</details></td>`);
  expect(html).toContain('<li>&lt;timeout&gt; after 2s</li>');
  expect(html).not.toContain('<timeout>');
});

test('a run page finds the file where the runner writes it, and shows the run', () => {
  const run = makeRun('20261101T000000Z-00000001', '2026-11-01T00:00:00Z', [
    { oci: 'runc', ociVersion: '1', samples: spread(50) },
  ]);
  expect(conventionalRunFile(run.runId)).toBe(`runs/${relativeRunPath(run)}`);
  expect(RUN_ID.test(run.runId)).toBe(true);
  expect(RUN_ID.test('../../etc/passwd')).toBe(false);
  const html = runPageHtml(run, conventionalRunFile(run.runId), (p) => `/base/${p}`);
  expect(html).toContain(`<a class="json-link" href="/base/data/runs/2026/11/01/${run.runId}.json">`);
  expect(html).toContain(`<td>${run.host.kernel}</td>`);
  expect(html).toContain('<td class="num median">50 ms</td>');
  expect(runPagePath(run.runId)).toBe(`run/?id=${run.runId}`);
});
