// On a regression the job summary says which version change it arrived with, its change and
// interval and what they were measured on, links the metric's site page, and names the bisection
// that follows. Checked on a real gate report (support/release-regression.ts); the expected
// versions are read from the files and the alteration, the expected page from the site's own
// index builder.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readResultFile, type BisectRequest } from '@runtime-bench/runner';
import {
  decideVersionChanges,
  runGate,
  VERSION_CHANGE_DEFAULTS,
  withVersionChanges,
} from '@runtime-bench/runner/compare';
import { formatChange } from '@runtime-bench/runner/format';
import { buildIndex } from '../../site/src/lib/index-builder.ts';
import { loaded } from '../../site/test/lib/fixtures.ts';
import { checkLines } from '../src/regressions.ts';
import { changesAgainstWindow, regressionEntries } from '../src/regression-report.ts';
import { stepSummaryParts, summaryMarkdown } from '../src/summary.ts';
import { DATA_RUNS, releaseRegression } from './support/release-regression.ts';

const SITE = 'https://org.github.io/runtime-bench';

describe('the regression entries of a real release regression', async () => {
  const { run, history, row, target, oldVersion, report } = await releaseRegression();
  const change = `${target.oci.name} ${oldVersion} → ${oldVersion}-next`;
  const flagged = report.rows.find(
    (r) =>
      r.kind === 'metric' &&
      r.target === row.target &&
      r.benchmark === row.benchmark &&
      r.metric === row.metric,
  )!;
  const entry = regressionEntries(report, SITE).find(
    (e) => e.target === row.target && e.benchmark === row.benchmark && e.metric === row.metric,
  )!;
  // The page the site builds for this metric, from the site's own index of these runs.
  const page = buildIndex(loaded(...history.map((h) => h.run), run)).metrics.find(
    (m) => m.benchmark === row.benchmark && m.metric === row.metric,
  )!;

  test('names the version change, the change with its interval across nights, and the site page', () => {
    expect(flagged.verdict).toBe('regression');
    expect(entry.verdict).toBe('regression');
    expect(entry.versionChanges).toEqual([change]);
    // the altered median against the window: twice what the row could detect, so beyond it
    expect(entry.change!.basis).toBe('across nights');
    expect(entry.change!.change).toBeGreaterThan(row.detectable!);
    expect(entry.change!.lower!).toBeLessThan(entry.change!.change);
    expect(entry.change!.upper!).toBeGreaterThan(entry.change!.change);
    expect(entry.siteUrl).toBe(`${SITE}/benchmark/${page.slug}/`);
    expect(entry.hostClass).toBe(report.current.hostClass);
    expect(entry.key).toContain(row.targetIdentity);
    expect(entry.runId).toBe(run.runId);
  });

  test('without a change point at a version change, the versions tonight against the window name it', () => {
    const copy = structuredClone(report);
    for (const r of copy.rows) if (r.kind === 'metric') r.changePoint = null;
    const e = regressionEntries(copy, '').find(
      (x) => x.target === row.target && x.benchmark === row.benchmark && x.metric === row.metric,
    )!;
    expect(e.versionSource).toBe('window');
    expect(e.versionChanges).toEqual([change]);
    expect(e.siteUrl).toBeNull();
  });

  test('the summary (Markdown and HTML) says it all, with the link and the bisection that follows', () => {
    const bisection: BisectRequest = {
      component: target.oci.name,
      good: oldVersion,
      bad: `${oldVersion}-next`,
      benchmark: row.benchmark,
      metric: row.metric,
      direction: 'slower',
    };
    const lines = checkLines(report, SITE);
    const results = [{ file: 'altered.json', result: run }];
    const md = summaryMarkdown(results, lines, [], undefined, [bisection]);
    const section = md.slice(md.indexOf('## Where the regressions came from'));
    const line = section.split('\n').find((l) => l.includes(`${row.benchmark} ${row.metric}`))!;
    expect(line).toContain(`${change}:`);
    // the gate's change and interval for the row, as printed (Markdown escapes the brackets)
    const c = flagged.kind === 'metric' ? flagged : null;
    expect(line).toContain(
      `${formatChange(c!.change)} \\[${formatChange(c!.changeLower)}, ${formatChange(c!.changeUpper)}\\] across nights`,
    );
    expect(line).toContain(`bisection ${change}: its report follows`);
    expect(line).toContain(`[site page](${SITE}/benchmark/${page.slug}/)`);
    const html = stepSummaryParts(results, lines, [], undefined, [bisection])
      .map((p) => p.html)
      .join('');
    expect(html).toContain('<h2>Where the regressions came from</h2>');
    expect(html).toContain(`<a href="${SITE}/benchmark/${page.slug}/">site page</a>`);
    // without a site address, no link; without bisect-on-regression, no bisection
    const plain = summaryMarkdown(results, checkLines(report), []);
    expect(plain).toContain(`${change}:`);
    expect(plain).not.toContain('site page');
    expect(plain).not.toContain('bisection');
  });
});

describe('changesAgainstWindow', () => {
  test('one line per component whose version tonight no night of the window had', () => {
    expect(changesAgainstWindow('containerd 2.1.4, runc 1.4.4', ['containerd 2.1.4, runc 1.4.3'])).toEqual([
      'runc 1.4.3 → 1.4.4',
    ]);
    expect(
      changesAgainstWindow('containerd 2.2.0, runc 1.4.4', [
        'containerd 2.1.4, runc 1.4.3',
        'containerd 2.1.4, runc 1.4.2',
      ]),
    ).toEqual(['containerd 2.1.4 → 2.2.0', 'runc 1.4.2 / 1.4.3 → 1.4.4']);
    expect(changesAgainstWindow('containerd 2.1.4, runc 1.4.4', ['containerd 2.1.4, runc 1.4.4'])).toEqual(
      [],
    );
    expect(changesAgainstWindow('containerd 2.1.4, runc 1.4.4', [])).toEqual([]);
  });
});

describe('a version change measured side by side is preferred to the comparison across nights', async () => {
  // The runc sweep of data/ (every release measured in one run), with 1.1.14 → 1.2.0 declared as
  // the night's version change, as the action's side-by-side step declares one.
  const run = await readResultFile(join(DATA_RUNS, '2026/11/26/20261126T220117Z-c1b5a8b7.json'));
  const before = run.targets.find((t) => t.oci.version === '1.1.14')!;
  const after = run.targets.find((t) => t.oci.version === '1.2.0')!;
  run.config.versionChanges = [{ before: before.id, after: after.id }];
  const current = { run, file: 'sweep.json' };
  // No history: the gate flags nothing across nights, so whatever regresses comes from the pair.
  const report = withVersionChanges(
    runGate(current, []),
    decideVersionChanges(current, [], { ...VERSION_CHANGE_DEFAULTS, threshold: 0.05, thresholds: {} }),
  );
  const entries = regressionEntries(report, SITE);
  const start = entries.find((e) => e.target === after.id && e.metric === 'StartContainer')!;

  test('the regression names the pair, its change and interval side by side, and its page', () => {
    expect(report.rows.filter((r) => r.verdict === 'regression')).toEqual([]);
    expect(start).toBeDefined();
    expect(start.versionSource).toBe('side by side');
    expect(start.versionChanges).toEqual([`${after.oci.name} ${before.oci.version} → ${after.oci.version}`]);
    // a regression's interval lies above 0 and its change is at least the 5 % threshold
    expect(start.change!.basis).toBe('side by side');
    expect(start.change!.lower!).toBeGreaterThan(0);
    expect(start.change!.change).toBeGreaterThanOrEqual(0.05);
    expect(start.targetIdentity).toBe(report.targets.find((t) => t.id === after.id)!.identity);
    expect(start.siteUrl).toBe(`${SITE}/benchmark/${start.benchmark}/startcontainer/`);
    // every entry is a metric the pair's decision called a regression, on the new version's target
    const regressed = report
      .versionChanges!.flatMap((p) => p.decision!.metrics)
      .filter((m) => m.verdict === 'regression')
      .map((m) => m.metric);
    expect(entries.map((e) => `${e.benchmark}:${e.metric}`).sort()).toEqual(regressed.sort());
  });

  test('it is a regression of the night in the summary, labelled side by side', () => {
    const lines = checkLines(report, SITE);
    expect(lines.regressions).toContainEqual(
      expect.stringMatching(
        /^operations\.container\.lifecycle StartContainer on .+ side by side \(regression\) \(runc 1\.1\.14 → 1\.2\.0\)$/,
      ),
    );
    const md = summaryMarkdown([{ file: 'sweep.json', result: run }], lines);
    const line = md
      .split('\n')
      .find((l) => l.startsWith('- runc 1.1.14 → 1.2.0:') && l.includes('StartContainer'))!;
    expect(line).toContain('side by side (regression)');
    expect(line).not.toContain('across nights');
  });
});
