// alert-issue: one GitHub issue per regressed benchmark × metric × target lineage (host class
// included), opened on the first night the regression is reported and commented on every later
// night that reports it again, like github-action-benchmark's alert comment. An open issue is
// found by its exact title (the list-issues endpoint by the alert label, then the search API), so
// the title is the key. The REST API is reached with plain fetch at
// GITHUB_API_URL, as a runner sets it (GitHub Enterprise Server included). Titles and bodies are
// pure; the requests go through an injected fetch.
import { escapeMarkdown, sanitizeTerminal } from '@runtime-bench/runner/format';
import { RbError } from '@runtime-bench/runner';
import { changeText, versionChangeText, whatRegressed, type RegressionEntry } from './regression-report.ts';

/** The label every alert issue carries (and the list is filtered by). */
export const ALERT_LABEL = 'runtime-bench-regression';

/** GitHub's longest issue title. */
const MAX_TITLE = 256;

/** Where the API is and which repository and run the alerts are about: from the runner's environment. */
export interface GitHubContext {
  apiUrl: string;
  /** owner/name */
  repository: string;
  /** This workflow run's page (its job summary holds the bisection reports), or null. */
  runUrl: string | null;
}

/** The runner's GITHUB_* variables as a GitHubContext (api.github.com when GITHUB_API_URL is unset). */
export function githubFromEnv(env: Readonly<Record<string, string | undefined>>): GitHubContext {
  const server = env.GITHUB_SERVER_URL || 'https://github.com';
  const repository = env.GITHUB_REPOSITORY ?? '';
  return {
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    repository,
    runUrl:
      repository && env.GITHUB_RUN_ID ? `${server}/${repository}/actions/runs/${env.GITHUB_RUN_ID}` : null,
  };
}

/**
 * The issue's title, its key: the metric, the benchmark, the target lineage (id · cri · oci) and
 * the host class, so that every night of the same series finds the same issue. Control characters
 * made visible; a title past GitHub's 256 characters is cut.
 */
export function issueTitle(
  entry: Pick<RegressionEntry, 'benchmark' | 'metric' | 'targetIdentity' | 'hostClass'>,
): string {
  const title = sanitizeTerminal(
    `runtime-bench regression: ${entry.benchmark} ${entry.metric} on ${entry.targetIdentity} (${entry.hostClass})`,
  );
  return title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1)}…`;
}

/** Markdown-safe text that mentions nobody (an "@" in a target id would notify that user). */
const text = (s: string): string => escapeMarkdown(s).replace(/@/g, '&#64;');

/** What a bisection of this regression found: its headline lines (bisect-format's) and its report's name. */
export interface BisectionFinding {
  headline: string[];
  /** e.g. "bisect-1.md", in the run's job summary and the action's work directory */
  report: string;
}

/** The Markdown of an issue's body and of each later night's comment: the same facts, every night. */
export function alertBody(
  entry: RegressionEntry,
  bisection: BisectionFinding | null,
  runUrl: string | null,
): string {
  const change = changeText(entry);
  const lines = [
    `**runtime-bench** reports a ${entry.verdict === 'regression' ? 'new regression' : 'regression still there (ongoing)'} in run \`${entry.runId.replace(/`/g, '')}\`.`,
    '',
    `- **What**: ${text(whatRegressed(entry))}`,
    `- **Lineage**: ${text(entry.targetIdentity)} on ${text(entry.hostClass)}`,
    `- **Version change**: ${text(versionChangeText(entry))}`,
    ...(change ? [`- **Change**: ${text(change)}`] : []),
    ...(entry.step ? [`- **Step**: ${text(entry.step)}`] : []),
    ...(entry.siteUrl ? [`- **Site page**: ${entry.siteUrl}`] : []),
    ...(bisection
      ? [
          `- **Bisection** (${text(bisection.report)}${runUrl ? ` in the job summary of ${runUrl}` : ''}):`,
          ...bisection.headline.map((l) => `  - ${text(l)}`),
        ]
      : []),
    ...(runUrl ? [`- **Run**: ${runUrl}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** A request of the REST API: the method, the path below the API URL, the JSON body. */
export type GitHubRequest = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<unknown>;

/** Requests with the token to `apiUrl`; a failed one is an RbError naming the call and the fix. */
export function gitHubRequest(apiUrl: string, token: string, fetchImpl: typeof fetch = fetch): GitHubRequest {
  return async (method, path, body) => {
    const response = await fetchImpl(`${apiUrl}${path}`, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'runtime-bench-action',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const message =
        payload && typeof payload === 'object' && 'message' in payload
          ? String(payload.message)
          : response.statusText;
      throw new RbError(
        'ALERT_ISSUE',
        `GitHub API ${method} ${path}: ${response.status} ${message}`,
        response.status === 401 || response.status === 403 || response.status === 404
          ? 'github-token needs the issues: write permission on this repository (permissions: issues: write in the job)'
          : 'see the message; the regressions are in the job summary either way',
      );
    }
    return payload;
  };
}

interface IssueListItem {
  number: number;
  title: string;
  pull_request?: unknown;
}

/** The longest phrase of a title put in a search query (GitHub refuses queries past 256 characters). */
const SEARCH_PHRASE = 180;

/**
 * The open issue with this exact title, or null: first among the open issues with the alert label
 * (list-issues, 100 a page), then by the search API — GitHub silently drops the labels of an issue
 * created by a token without push access, and such an issue must still be found the next night.
 */
export async function findOpenIssue(
  request: GitHubRequest,
  repository: string,
  title: string,
): Promise<number | null> {
  const exact = (issues: readonly IssueListItem[]): number | null =>
    issues.find((i) => i.title === title && i.pull_request === undefined)?.number ?? null;
  for (let page = 1; ; page++) {
    const issues = (await request(
      'GET',
      `/repos/${repository}/issues?state=open&labels=${encodeURIComponent(ALERT_LABEL)}&per_page=100&page=${page}`,
    )) as IssueListItem[];
    const found = exact(issues);
    if (found !== null) return found;
    if (issues.length < 100) break;
  }
  const phrase = title.replace(/"/g, ' ').slice(0, SEARCH_PHRASE);
  const query = `repo:${repository} is:issue is:open in:title "${phrase}"`;
  const found = (await request('GET', `/search/issues?q=${encodeURIComponent(query)}&per_page=100`)) as {
    items: IssueListItem[];
  };
  return exact(found.items);
}

/** What happened to one regression's issue. */
export interface AlertOutcome {
  title: string;
  issue: number;
  action: 'opened' | 'commented';
}

/**
 * Opens or comments on one issue per entry (entries of one key share one: the first opens, the
 * rest comment). No entries, no request.
 */
export async function alertIssues(
  request: GitHubRequest,
  repository: string,
  alerts: readonly { entry: RegressionEntry; body: string }[],
): Promise<AlertOutcome[]> {
  const out: AlertOutcome[] = [];
  for (const { entry, body } of alerts) {
    const title = issueTitle(entry);
    const known =
      out.find((o) => o.title === title)?.issue ?? (await findOpenIssue(request, repository, title));
    if (known !== null) {
      await request('POST', `/repos/${repository}/issues/${known}/comments`, { body });
      out.push({ title, issue: known, action: 'commented' });
    } else {
      const created = (await request('POST', `/repos/${repository}/issues`, {
        title,
        body,
        labels: [ALERT_LABEL],
      })) as { number: number };
      out.push({ title, issue: created.number, action: 'opened' });
    }
  }
  return out;
}
