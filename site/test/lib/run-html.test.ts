import { expect, test } from 'vitest';
import { metricsTableHtml } from '../../src/lib/run-html.ts';
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
