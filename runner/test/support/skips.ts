// The test command's rule on skips: every skipped or todo test must be on the allow-list with the
// reason it may skip (scripts/allowed-skips.yaml), or the test command fails. A green run then
// proves what ran: an end-to-end test that quietly skipped for a missing binary shows as a failure,
// and the log lists every skip with its reason.
//   node runner/test/support/skips.ts <vitest-json-report> <allowed-skips.yaml>
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parse } from 'yaml';

export interface AllowedSkip {
  /** The test file, relative to the repository root. */
  file: string;
  /** The test's full name (describe titles and its own, space-joined), or a prefix of it ending a title. */
  test: string;
  reason: string;
}

export interface SkipReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name: string; assertionResults: { status: string; fullName: string }[] }[];
}

export interface SkipVerdict {
  /** Every skip, with the reason the list gives, or null when it is not listed. */
  skips: { file: string; test: string; reason: string | null }[];
  unlisted: number;
}

/** Parses the allow-list; an entry without file, test or reason is an error naming it. */
export function parseAllowedSkips(text: string, where: string): AllowedSkip[] {
  const doc: unknown = parse(text);
  if (!Array.isArray(doc)) throw new Error(`${where}: expected a list of { file, test, reason }`);
  return doc.map((entry: unknown, i) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    for (const key of ['file', 'test', 'reason'])
      if (typeof e[key] !== 'string' || (e[key] as string).trim() === '')
        throw new Error(`${where}: entry ${i + 1} needs a non-empty "${key}"`);
    return { file: e.file as string, test: e.test as string, reason: e.reason as string };
  });
}

const matches = (allowed: AllowedSkip, file: string, test: string): boolean =>
  allowed.file === file && (test === allowed.test || test.startsWith(`${allowed.test} `));

/** Which skips of a vitest JSON report the list allows; `root` makes report paths relative. */
export function judgeSkips(report: SkipReport, allowed: readonly AllowedSkip[], root: string): SkipVerdict {
  const skips: SkipVerdict['skips'] = [];
  for (const file of report.testResults) {
    const rel = relative(root, file.name);
    for (const t of file.assertionResults) {
      if (t.status !== 'skipped' && t.status !== 'pending' && t.status !== 'todo') continue;
      const entry = allowed.find((a) => matches(a, rel, t.fullName));
      skips.push({ file: rel, test: t.fullName, reason: entry?.reason ?? null });
    }
  }
  return { skips, unlisted: skips.filter((s) => s.reason === null).length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [reportPath, listPath] = process.argv.slice(2);
  let report: SkipReport;
  try {
    report = JSON.parse(readFileSync(reportPath!, 'utf8')) as SkipReport;
  } catch {
    console.log('vitest: 0 passed, 1 failed');
    process.exit(1);
  }
  const verdict = judgeSkips(
    report,
    parseAllowedSkips(readFileSync(listPath!, 'utf8'), listPath!),
    process.cwd(),
  );
  for (const s of verdict.skips)
    console.error(
      s.reason === null
        ? `== test: SKIPPED, NOT ALLOWED: ${s.file} › ${s.test} (list it in ${listPath} with its reason, or make it run)`
        : `== test: skipped: ${s.file} › ${s.test}: ${s.reason}`,
    );
  const skipped = report.numPendingTests + report.numTodoTests;
  const failed = report.numFailedTests + verdict.unlisted;
  console.log(`vitest: ${report.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 ? 1 : 0);
}
