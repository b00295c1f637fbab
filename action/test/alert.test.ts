// alert-issue end to end through the real step (`node action/src/main.ts alert`, inputs and
// GITHUB_* in its environment as a runner sets them), against a loopback HTTP server at
// GITHUB_API_URL that keeps issues and comments as GitHub's REST API does for these four calls
// and records every request. The regressions are a real gate report's (support/release-regression.ts):
// night 1 the new regression, night 2 the same run measured again an hour later, which the gate
// reports as ongoing.
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { runGate } from '@runtime-bench/runner/compare';
import { alertBody } from '../src/alert.ts';
import { writeRegressions } from '../src/alert-step.ts';
import { bisectPaths } from '../src/bisect.ts';
import { regressionEntries, type RegressionEntry } from '../src/regression-report.ts';
import { sampleBisectReport } from '../../site/test/lib/bisection-fixture.ts';
import { releaseRegression } from './support/release-regression.ts';

const MAIN = join(import.meta.dirname, '../src/main.ts');
const SITE = 'https://org.github.io/runtime-bench';
const REPO = 'octo/bench';
const LABEL = 'runtime-bench-regression';

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  body: Record<string, unknown> | null;
}

/** The issues and comments endpoints, as far as the step uses them; `deny` answers 403 to writes. */
class FakeIssues {
  issues: { number: number; title: string; body: string; labels: string[]; state: 'open' | 'closed' }[] = [];
  comments: { issue: number; body: string }[] = [];
  requests: Recorded[] = [];
  deny = false;
  readonly server: Server = createServer((req, res) => void this.handle(req, res));

  url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    this.requests.push({
      method: req.method!,
      url: req.url!,
      authorization: req.headers.authorization,
      body,
    });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.pathname === `/repos/${REPO}/issues`) {
      const label = url.searchParams.get('labels');
      const page = Number(url.searchParams.get('page') ?? 1);
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const open = this.issues.filter(
        (i) => i.state === (url.searchParams.get('state') ?? 'open') && (!label || i.labels.includes(label)),
      );
      return send(200, open.slice((page - 1) * perPage, page * perPage));
    }
    if (req.method === 'GET' && url.pathname === '/search/issues') {
      // The qualifiers the step sends, and the quoted phrase matched in the title (case-insensitive).
      const q = url.searchParams.get('q') ?? '';
      const phrase = /"([^"]*)"/.exec(q)?.[1]?.toLowerCase() ?? '';
      if (!q.includes(`repo:${REPO}`) || !q.includes('is:open') || !q.includes('in:title'))
        return send(422, { message: 'unexpected query' });
      const items = this.issues.filter((i) => i.state === 'open' && i.title.toLowerCase().includes(phrase));
      return send(200, { total_count: items.length, items });
    }
    if (this.deny) return send(403, { message: 'Resource not accessible by integration' });
    if (req.method === 'POST' && url.pathname === `/repos/${REPO}/issues`) {
      const issue = {
        number: this.issues.length + 1,
        title: String(body!.title),
        body: String(body!.body),
        labels: body!.labels as string[],
        state: 'open' as const,
      };
      this.issues.push(issue);
      return send(201, { number: issue.number, title: issue.title });
    }
    const comment = new RegExp(`^/repos/${REPO}/issues/(\\d+)/comments$`).exec(url.pathname);
    if (req.method === 'POST' && comment) {
      this.comments.push({ issue: Number(comment[1]), body: String(body!.body) });
      return send(201, { id: this.comments.length });
    }
    send(404, { message: 'Not Found' });
  }
}

const fake = new FakeIssues();
await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
const dirs: string[] = [];
afterAll(async () => {
  await new Promise((resolve) => fake.server.close(resolve));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
beforeEach(() => {
  fake.issues = [];
  fake.comments = [];
  fake.requests = [];
  fake.deny = false;
});

/** Runs the alert step in a work directory holding `entries` as the summary step left them. */
async function alertStep(
  entries: RegressionEntry[],
  env: Record<string, string> = {},
  prepare?: (dir: string) => Promise<void>,
) {
  const workDir = await mkdtemp(join(tmpdir(), 'rb-alert-'));
  dirs.push(workDir);
  await writeRegressions(workDir, entries);
  await prepare?.(workDir);
  const output = join(workDir, 'github-output');
  await writeFile(output, '');
  const result = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(
      process.execPath,
      [MAIN, 'alert'],
      {
        env: {
          PATH: process.env.PATH,
          RB_ACTION_DIR: workDir,
          GITHUB_OUTPUT: output,
          GITHUB_API_URL: fake.url(),
          GITHUB_REPOSITORY: REPO,
          GITHUB_SERVER_URL: 'https://github.example',
          GITHUB_RUN_ID: '4242',
          INPUT_ALERT_ISSUE: 'true',
          INPUT_GITHUB_TOKEN: 'tok-123',
          ...env,
        },
      },
      (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
    ),
  );
  return { ...result, outputs: await readFile(output, 'utf8') };
}

/** The title the issue of an entry must have: its lineage, benchmark and metric, and the host class. */
const expectedTitle = (e: RegressionEntry) =>
  `runtime-bench regression: ${e.benchmark} ${e.metric} on ${e.targetIdentity} (${e.hostClass})`;

describe('alert-issue', async () => {
  const { run, history, row, target, oldVersion, report } = await releaseRegression();
  const night1 = regressionEntries(report, SITE);
  // Night 2: the regressed run measured again an hour later, night 1 now in the history.
  const again = structuredClone(run);
  again.runId = `${again.runId.slice(0, 9)}${String(Number(again.runId.slice(9, 11)) + 1).padStart(2, '0')}${again.runId.slice(11, 16)}-eeeeeeee`;
  again.startedAt = new Date(Date.parse(run.startedAt) + 3600_000).toISOString();
  const night2 = regressionEntries(
    runGate({ run: again, file: 'night2.json' }, [...history, { run, file: 'night1.json' }]),
    SITE,
  );
  const change = `${target.oci.name} ${oldVersion} → ${oldVersion}-next`;
  const ours = (e: RegressionEntry) =>
    e.target === row.target && e.benchmark === row.benchmark && e.metric === row.metric;

  test('night 1 opens one issue per regression, titled by its lineage, labelled, with the facts and the bisection', async () => {
    expect(night1.filter(ours)).toHaveLength(1);
    const report1 = sampleBisectReport({
      component: target.oci.name,
      good: oldVersion,
      bad: `${oldVersion}-next`,
      benchmark: row.benchmark,
      metric: row.metric,
    });
    const { code, stdout, outputs } = await alertStep(night1, {}, async (dir) => {
      const p = bisectPaths(dir);
      const request = { ...report1, direction: 'slower' };
      await writeFile(p.requests, JSON.stringify([request]));
      await writeFile(p.report(0), JSON.stringify(report1));
    });
    expect(code, stdout).toBe(0);
    const titles = [...new Set(night1.map(expectedTitle))];
    expect(fake.issues.map((i) => i.title)).toEqual(titles);
    expect(fake.comments).toEqual([]);
    for (const r of fake.requests) expect(r.authorization).toBe('Bearer tok-123');
    const issue = fake.issues.find((i) => i.title === expectedTitle(night1.find(ours)!))!;
    expect(issue.labels).toEqual([LABEL]);
    expect(issue.body).toContain(change);
    expect(issue.body).toContain('across nights');
    expect(issue.body).toContain(`${SITE}/benchmark/`);
    expect(issue.body).toContain(run.runId);
    expect(issue.body).toContain('https://github.example/octo/bench/actions/runs/4242');
    // the bisection's finding, from the report written beside it
    expect(issue.body).toContain('bisect-1.md');
    expect(issue.body).toContain(report1.firstBadCommit!.label);
    expect(outputs).toContain(String(issue.number));
  });

  test('night 2 comments on the same issue instead of opening another', async () => {
    await alertStep(night1);
    const opened = fake.issues.map((i) => ({ ...i }));
    fake.requests = [];
    expect(night2.find(ours)?.verdict).toBe('ongoing regression');
    const { code, stdout } = await alertStep(night2);
    expect(code, stdout).toBe(0);
    expect(fake.issues.map((i) => i.number)).toEqual(opened.map((i) => i.number));
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url === `/repos/${REPO}/issues`)).toEqual([]);
    const issue = opened.find((i) => i.title === expectedTitle(night2.find(ours)!))!;
    const comments = fake.comments.filter((c) => c.issue === issue.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(again.runId);
    expect(comments[0]!.body).toContain('ongoing');
    expect(comments[0]!.body).toContain(change);
  });

  test('an issue whose label GitHub dropped (a token without push access) is still found by its title', async () => {
    await alertStep(night1.filter(ours));
    fake.issues[0]!.labels = [];
    await alertStep(night2.filter(ours));
    expect(fake.issues).toHaveLength(1);
    expect(fake.comments.map((c) => c.issue)).toEqual([fake.issues[0]!.number]);
  });

  test('a closed issue is left alone: the next report opens a new one', async () => {
    await alertStep(night1.filter(ours));
    fake.issues[0]!.state = 'closed';
    await alertStep(night2.filter(ours));
    expect(fake.issues.map((i) => i.state)).toEqual(['closed', 'open']);
    expect(fake.comments).toEqual([]);
  });

  test('no regression: no request', async () => {
    const { code, stdout } = await alertStep([]);
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('no regressions');
    expect(fake.requests).toEqual([]);
  });

  test('alert-issue without github-token fails naming the input and the fix, and makes no request', async () => {
    for (const entries of [night1, []]) {
      const { code, stdout } = await alertStep(entries, { INPUT_GITHUB_TOKEN: '' });
      expect(code).toBe(1);
      expect(stdout).toMatch(/::error::alert-issue is true but github-token is empty/);
      expect(stdout).toContain('permissions: issues: write');
    }
    expect(fake.requests).toEqual([]);
  });

  test('a token without issues: write fails naming the permission', async () => {
    fake.deny = true;
    const { code, stdout } = await alertStep(night1.filter(ours));
    expect(code).toBe(1);
    expect(stdout).toMatch(/::error::GitHub API POST \/repos\/octo\/bench\/issues: 403/);
    expect(stdout).toContain('issues: write');
  });

  test('alert-issue false: the step does nothing', async () => {
    const { code } = await alertStep(night1, { INPUT_ALERT_ISSUE: 'false' });
    expect(code).toBe(0);
    expect(fake.requests).toEqual([]);
  });
});

describe('alertBody', () => {
  test('mentions nobody and keeps Markdown out of the facts', () => {
    const entry: RegressionEntry = {
      key: 'k',
      verdict: 'regression',
      hostClass: 'h',
      target: '@octocat/runc',
      targetIdentity: '@octocat/runc · cri containerd · oci runc',
      benchmark: 'b',
      metric: 'm*',
      versionChanges: ['runc 1.4.3 → 1.4.4'],
      versionSource: 'window',
      change: { basis: 'across nights', change: 0.12, lower: 0.08, upper: 0.16 },
      step: '',
      runId: '20261121T080000Z-0123abcd',
      siteUrl: null,
    };
    const body = alertBody(entry, null, null);
    expect(body).not.toContain('@octocat');
    expect(body).toContain('&#64;octocat');
    expect(body).toContain('m\\*');
    expect(body).toContain('+12.0 % \\[+8.0 %, +16.0 %\\] across nights');
  });
});
