// The job summary's regression part on a real gate report: the gate (`runtime-bench check`'s
// runGate) run on the result files of data/, with the newest run copied and altered the way a
// release regression looks — one checked metric 60 % slower and its OCI runtime at a new version.
// Expectations come from the files and from that alteration, not from the gate's own counting.
import { describe, expect, test } from 'vitest';
import { hostClassOf } from '@runtime-bench/schemas';
import { runGate } from '@runtime-bench/runner/compare';
import { readHistoryDir } from '@runtime-bench/runner/history';
import { summaryMarkdown } from '../src/summary.ts';
import { checkLines } from '../src/regressions.ts';
import { DATA_RUNS, releaseRegression } from './support/release-regression.ts';

describe('regression lines and coverage from a real gate report on data/', async () => {
  const { entries } = await readHistoryDir(DATA_RUNS);
  const newest = entries.at(-1)!;
  const earlier = entries.filter((e) => e.run.runId !== newest.run.runId);

  test('the newest run as it is: coverage says how many rows were checked and why not the others', () => {
    const lines = checkLines(runGate(newest, earlier));
    // rows: one per metric, plus a status row per benchmark not ok now or in the previous run,
    // plus an error-rate row per benchmark with failed attempts (now or in its baseline)
    const metricRows = newest.run.results.reduce((n, r) => n + r.metrics.length, 0);
    const [head, ...why] = lines.coverage;
    const [, checked, rows] = /^(\d+) of (\d+) rows checked$/.exec(head!)!.map(Number);
    expect(rows).toBeGreaterThanOrEqual(metricRows);
    const notChecked = why.map((l) => Number(/^(\d+) row\(s\) not checked: .+$/.exec(l)![1]));
    expect(checked! + notChecked.reduce((a, b) => a + b, 0)).toBe(rows);
    // a host class measured for the first time has no baseline at all; on a known one, benchmarks ×
    // targets measured for the first time cannot have one
    const sameClass = earlier.filter((e) => hostClassOf(e.run.host) === hostClassOf(newest.run.host));
    const seen = new Set(sameClass.flatMap((e) => e.run.results.map((r) => `${r.benchmark} ${r.target}`)));
    const fresh = newest.run.results
      .filter((r) => !seen.has(`${r.benchmark} ${r.target}`))
      .reduce((n, r) => n + r.metrics.length, 0);
    if (sameClass.length === 0)
      expect(why.join('\n')).toMatch(/not checked: no earlier run of this host class/);
    else if (fresh > 0) expect(why.join('\n')).toMatch(/not checked: no earlier run of this benchmark/);
    expect(lines.regressions).toEqual([]);
  });

  test('a release regression: the line names the step, its night and "runc X → Y"', async () => {
    const { run, history, row, target, oldVersion, report } = await releaseRegression();
    const lines = checkLines(report);
    const line = lines.regressions.find((l) =>
      l.startsWith(`${row.benchmark} ${row.metric} on ${row.target}:`),
    );
    expect(line, lines.regressions.join('\n')).toBeDefined();
    // the step is at the altered run, and the OCI runtime's version change is named; the previous
    // run's version of that target is read from the files here, not from the gate
    const previous = history.at(-1)!.run.targets.find((t) => t.id === row.target)!.oci.version;
    expect(previous).toBe(oldVersion);
    expect(line).toContain(`at ${run.runId}`);
    expect(line).toContain(`${target.oci.name} ${oldVersion} → ${oldVersion}-next`);
    // the line says where the night factor came from: the target changed, so not its own metrics
    const flagged = report.rows.find(
      (r) =>
        r.kind === 'metric' &&
        r.target === row.target &&
        r.benchmark === row.benchmark &&
        r.metric === row.metric,
    )!;
    if (flagged.kind !== 'metric') throw new Error('expected a metric row');
    expect(flagged.factorSource).not.toBe('own');
    expect(line).toMatch(
      flagged.factorSource === 'controls'
        ? /; raw .+, night factor .+ \(controls: .+\)/
        : /; raw .+, night factor none/,
    );
    const md = summaryMarkdown([{ file: 'altered.json', result: run }], lines);
    expect(md).toContain('## Regression check');
    expect(md).toContain('## New regressions');
    expect(md).toContain(`${target.oci.name} ${oldVersion} → ${oldVersion}-next`);
  });
});
