// On a regression the job summary says which version change it arrived with, its change and
// interval and what they were measured on, links the metric's site page, and names the bisection
// that follows. Checked on a real gate report (support/release-regression.ts); the expected
// versions are read from the files and the alteration, the expected page from the site's own
// index builder.
import { describe, expect, test } from 'vitest';
import type { BisectRequest } from '@runtime-bench/runner';
import { formatChange } from '@runtime-bench/runner/format';
import { buildIndex } from '../../site/src/lib/index-builder.ts';
import { loaded } from '../../site/test/lib/fixtures.ts';
import { checkLines } from '../src/regressions.ts';
import { changesAgainstWindow, regressionEntries } from '../src/regression-report.ts';
import { stepSummaryParts, summaryMarkdown } from '../src/summary.ts';
import { releaseRegression } from './support/release-regression.ts';

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
