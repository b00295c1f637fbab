import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { sampleRunResult } from '../../schemas/test/sample.ts';
import { annotationsFor, benchmarkTables, summaryMarkdown, writeSummary } from '../src/summary.ts';
import type { CheckLines } from '../src/regressions.ts';

const lines = (regressions: string[], coverage = ['1 of 1 rows checked']): CheckLines => ({
  regressions,
  ongoing: [],
  coverage,
  entries: [],
});

const failing = () => {
  const r = sampleRunResult({ status: 'incomplete', incompleteReason: 'interrupted by SIGTERM' });
  r.results.push({
    ...r.results[0]!,
    status: 'failed',
    reason: 'runc: exec format error',
    metrics: [],
    attempts: 5,
    failedAttempts: 5,
  });
  return r;
};

describe('job summary', () => {
  test('one table per benchmark, a row per target × metric with median, spread, n, errors, status', () => {
    const tables = benchmarkTables(failing());
    expect(tables).toHaveLength(1);
    expect(tables[0]!.rows).toEqual([
      [
        'containerd/runc',
        'runc (runc 1.1.5)',
        'CreateContainer (ms, lower is better)',
        '5.1 ms',
        '5.26 ms',
        '4.9 ms–5.3 ms',
        '5',
        '0',
        'ok',
      ],
      [
        'containerd/runc',
        'runc (runc 1.1.5)',
        '—',
        '—',
        '—',
        '—',
        '0',
        '5',
        'failed: runc: exec format error',
      ],
    ]);
  });

  test('failed runs become error annotations', () => {
    expect(annotationsFor(failing(), 'r.json')).toEqual([
      {
        rank: 0,
        level: 'error',
        title: 'runtime-bench run 20261121T080000Z-0123abcd incomplete',
        message: 'r.json: interrupted by SIGTERM',
      },
      {
        rank: 2,
        level: 'error',
        title: 'operations.container.lifecycle on containerd/runc: failed',
        message: 'runc: exec format error',
      },
    ]);
    expect(annotationsFor(sampleRunResult(), 'r.json')).toEqual([]);
  });

  test('a run that went to its end with a benchmark × target that measured nothing is reported partial', () => {
    const finished = { ...failing(), incompleteReason: undefined };
    delete finished.incompleteReason;
    const expected = {
      rank: 0,
      level: 'error',
      title: 'runtime-bench run 20261121T080000Z-0123abcd partial',
      message: 'r.json: operations.container.lifecycle on containerd/runc measured nothing',
    };
    // Written partial (version 6), or complete by a writer before version 6: the same report.
    for (const run of [
      { ...finished, status: 'partial' as const },
      { ...finished, status: 'complete' as const, schemaVersion: 5 as const },
    ]) {
      expect(annotationsFor(run, 'r.json')[0]).toEqual(expected);
      expect(summaryMarkdown([{ file: 'r.json', result: run }], null)).toContain(
        'Run 20261121T080000Z-0123abcd (partial) on',
      );
    }
  });

  test('markdown escapes pipes in cells', () => {
    const r = failing();
    r.results[1]!.reason = 'a | b';
    expect(summaryMarkdown([{ file: 'r.json', result: r }], null)).toContain('failed: a \\| b |');
  });

  test('markup in target ids, reasons and host fields never reaches the Markdown summary as HTML', () => {
    const evil = '</script><script>alert(1)</script>';
    const r = failing();
    r.results[1]!.reason = evil;
    r.host.cpuModel = evil;
    const md = summaryMarkdown([{ file: 'r.json', result: r }], lines([evil]));
    expect(md).not.toContain('<script');
    expect(md).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('writeSummary writes the table to GITHUB_STEP_SUMMARY through the toolkit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rb-summary-'));
    const file = join(dir, 'summary.md');
    await writeFile(file, '');
    const saved = process.env.GITHUB_STEP_SUMMARY;
    process.env.GITHUB_STEP_SUMMARY = file;
    try {
      // The toolkit's summary caches its file: one test writes it, with markup in the input.
      const evil = '</script><script>alert(1)</script>';
      const result = sampleRunResult();
      result.host.cpuModel = evil;
      const out: string[] = [];
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        out.push(String(chunk));
        return true;
      });
      const timings = [{ step: 'setup', seconds: 5.5, note: '' }];
      try {
        await writeSummary([{ file: 'r.json', result }], lines(['x on y: +10.0 %', evil]), timings);
      } finally {
        spy.mockRestore();
      }
      // Each regression is also an error annotation; the runner-side cost follows the results.
      expect(out.join('')).toContain('::error title=runtime-bench regression::x on y: +10.0 %');
      const html = await readFile(file, 'utf8');
      expect(html).not.toContain('<script');
      expect(html).toContain('&lt;/script&gt;&lt;script&gt;');
      expect(html).toContain('| setup | 5.5 |');
      expect(summaryMarkdown([{ file: 'r.json', result: sampleRunResult() }], lines([]), timings)).toMatch(
        /## New regressions\n\nNo new regressions against the baseline\.\n\n## Runner-side cost/,
      );
      expect(summaryMarkdown([{ file: 'r.json', result: sampleRunResult() }], null)).toContain(
        'No baseline given: this run was not checked for regressions.',
      );
      expect(html).toContain('<h2>operations.container.lifecycle</h2>');
      expect(html).toContain('<th>median</th>');
      expect(html).toContain('<td>4.9 ms–5.3 ms</td>');
      expect(html).toContain('<li>x on y: +10.0 %</li>');
    } finally {
      process.env.GITHUB_STEP_SUMMARY = saved;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
