import { describe, expect, test } from 'vitest';
import { relativeRunPath } from '@runtime-bench/runner';
import { metricsTableHtml } from '../../src/lib/run-html.ts';
import { conventionalRunFile, RUN_ID, runPageHtml, runPagePath, toolHtml } from '../../src/lib/run-page.ts';
import { digestRun } from '../../src/lib/run-digest.ts';
import { runStatusOf } from '../../src/lib/site-index.ts';
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

describe('the status a run is shown with', () => {
  /** One target measured, the other's benchmark measured nothing. */
  const unmeasured = () =>
    makeRun('20261101T000000Z-00000002', '2026-11-01T00:00:00Z', [
      { oci: 'runc', ociVersion: '1', samples: spread(50) },
      { oci: 'crun', ociVersion: '1', status: 'failed', reason: 'no attempt succeeded: exec format error' },
    ]);

  test('a partial run says so and names what measured nothing, on its page too', () => {
    const run = unmeasured();
    expect(run.status).toBe('partial');
    const expected = {
      status: 'partial',
      why: 'operations.container.lifecycle on containerd/crun measured nothing',
    };
    expect(runStatusOf(run)).toEqual(expected);
    const html = runPageHtml(run, conventionalRunFile(run.runId), (p) => p);
    expect(html).toContain(`<th scope="row">Status</th><td>partial — ${expected.why}</td>`);
  });

  test('a file before version 6 said complete of such a run: shown partial, the file untouched', () => {
    const old = { ...unmeasured(), schemaVersion: 5 as const, status: 'complete' as const };
    expect(runStatusOf(old)).toEqual(runStatusOf(unmeasured()));
    expect(old.status).toBe('complete');
    const measured = makeRun('20261101T000000Z-00000003', '2026-11-01T00:00:00Z', [
      { oci: 'runc', ociVersion: '1', samples: spread(50) },
    ]);
    expect(runStatusOf({ ...measured, schemaVersion: 5 })).toEqual({ status: 'complete', why: undefined });
    expect(runStatusOf({ ...old, status: 'incomplete', incompleteReason: 'SIGTERM' })).toEqual({
      status: 'incomplete',
      why: 'SIGTERM',
    });
  });
});

describe('a run measured from a modified checkout', () => {
  const SHA = '0123456789abcdef0123456789abcdef01234567';
  const runFrom = (gitCommit: string | null) => {
    const run = makeRun('20261101T000000Z-00000004', '2026-11-01T00:00:00Z', [
      { oci: 'runc', ociVersion: '1', samples: spread(50) },
    ]);
    return { ...run, tool: { ...run.tool, gitCommit } };
  };
  const MARK = '<strong class="modified-checkout"';

  test('is marked beside its tool commit on the run page, and in the runs list', () => {
    const dirty = runFrom(`${SHA}+dirty`);
    expect(toolHtml(dirty.tool)).toMatch(
      new RegExp(
        `^runtime-bench 0\\.1\\.0 \\(${SHA}\\+dirty\\), Node v[\\d.]+ ${MARK}[^>]*>from a modified checkout</strong>$`,
      ),
    );
    expect(runPageHtml(dirty, conventionalRunFile(dirty.runId), (p) => p)).toContain(MARK);
    expect(digestRun(dirty, 'x.json').meta.modifiedCheckout).toBe(true);
  });

  test('a clean commit, or none, is shown plain', () => {
    for (const commit of [SHA, null]) {
      const run = runFrom(commit);
      expect(toolHtml(run.tool)).toBe(
        `runtime-bench 0.1.0${commit ? ` (${commit})` : ''}, Node ${run.tool.node}`,
      );
      expect(runPageHtml(run, conventionalRunFile(run.runId), (p) => p)).not.toContain('modified-checkout');
      expect(digestRun(run, 'x.json').meta.modifiedCheckout).toBe(false);
    }
  });
});
