// The alert step (alert-issue): after the summary, bisect and publish steps, opens or comments on
// one issue per regression the summary step found (its regressions.json), each with the
// bisection that ran for it. The token is github-token, which action.yml hands to this step
// alone; without it nothing can be alerted, and the step says which input to set.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as core from '@actions/core';
import { errorMessage, parseWithFriendlyErrors, RbError, type BisectRequest } from '@runtime-bench/runner';
import { bisectHeadline } from '@runtime-bench/runner/bisect-format';
import { BisectReportSchema } from '@runtime-bench/schemas';
import { alertBody, alertIssues, gitHubRequest, githubFromEnv, type BisectionFinding } from './alert.ts';
import { bisectPaths } from './bisect.ts';
import { bisectionFor, type RegressionEntry } from './regression-report.ts';
import type { StepContext } from './step-context.ts';

/** The summary step's regressions (new and ongoing), for this step. */
export const regressionsFile = (workDir: string): string => join(workDir, 'regressions.json');

export async function writeRegressions(workDir: string, entries: readonly RegressionEntry[]): Promise<void> {
  await writeFile(regressionsFile(workDir), `${JSON.stringify(entries, null, 2)}\n`);
}

/** Removes an earlier run's regressions, so that a summary step that fails early leaves none to alert. */
export async function clearRegressions(workDir: string): Promise<void> {
  await rm(regressionsFile(workDir), { force: true });
}

/** What each bisection the bisect step ran found, with the request it answered. */
async function bisectionFindings(
  workDir: string,
): Promise<(BisectRequest & { finding: BisectionFinding })[]> {
  const p = bisectPaths(workDir);
  const requests = JSON.parse(await readFile(p.requests, 'utf8').catch(() => '[]')) as BisectRequest[];
  const out: (BisectRequest & { finding: BisectionFinding })[] = [];
  for (const [i, request] of requests.entries()) {
    const text = await readFile(p.report(i), 'utf8').catch(() => null);
    if (text === null) continue; // not run (bisect-on-regression off, or it wrote no report)
    try {
      const report = parseWithFriendlyErrors(BisectReportSchema, JSON.parse(text), p.report(i), {
        code: 'BISECT_REPORT_INVALID',
      });
      out.push({ ...request, finding: { headline: bisectHeadline(report), report: `bisect-${i + 1}.md` } });
    } catch (error) {
      core.warning(`${p.report(i)} is left out of the alert: ${errorMessage(error)}`, {
        title: 'runtime-bench',
      });
    }
  }
  return out;
}

export async function stepAlert(ctx: StepContext): Promise<void> {
  if (!ctx.inputs['alert-issue']) return;
  const token = ctx.inputs['github-token'];
  if (!token)
    throw new RbError(
      'USAGE_INPUT',
      'alert-issue is true but github-token is empty: no issue can be opened or commented on',
      'pass github-token: ${{ secrets.GITHUB_TOKEN }} and give the job permissions: issues: write (or set alert-issue: false)',
    );
  const text = await readFile(regressionsFile(ctx.workDir), 'utf8').catch(() => null);
  const entries = text === null ? [] : (JSON.parse(text) as RegressionEntry[]);
  if (entries.length === 0) {
    console.log(
      text === null
        ? 'no regressions file (the summary step did not get that far): no issue opened or commented on'
        : 'no regressions: no issue opened or commented on',
    );
    return;
  }
  const github = ctx.github ?? githubFromEnv({});
  if (!github.repository)
    throw new RbError(
      'ALERT_ISSUE',
      'GITHUB_REPOSITORY is not set',
      'the runner sets it; run the action in a workflow',
    );
  const bisections = await bisectionFindings(ctx.workDir);
  const alerts = entries.map((entry) => ({
    entry,
    body: alertBody(entry, bisectionFor(entry, bisections)?.finding ?? null, github.runUrl),
  }));
  const outcomes = await alertIssues(gitHubRequest(github.apiUrl, token), github.repository, alerts);
  for (const o of outcomes) console.log(`${o.action} issue #${o.issue}: ${o.title}`);
  ctx.setOutput('alert-issues', outcomes.map((o) => String(o.issue)).join('\n'));
}
