// Reading a bisection report file: validated against the report schema of its version, with an
// error naming the file and the field; and its canonical text, which is what publish writes (the
// file as `bisect` wrote it, key order kept — a version-1 report stays version 1 on the branch).
import {
  BisectReportSchema,
  READABLE_BISECT_REPORT_SCHEMA_VERSIONS,
  type BisectReport,
} from '@runtime-bench/schemas';
import { RbError, parseWithFriendlyErrors } from '../errors.ts';
import { jsonSyntaxProblem } from './io.ts';

const HINT =
  'bisection reports are written by `runtime-bench bisect` (its --out, and bisections/ of its --data-dir); run it again rather than editing one';

/** A report's text, validated: a readable version, every field as its version's schema says. */
export function parseBisectionReport(text: string, where: string): BisectReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'BISECTION_INVALID',
      `${where}: not valid JSON (${jsonSyntaxProblem(error, text)})`,
      HINT,
    );
  }
  const version = (json as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (
    typeof version === 'number' &&
    !(READABLE_BISECT_REPORT_SCHEMA_VERSIONS as readonly number[]).includes(version)
  )
    throw new RbError(
      'BISECTION_INVALID',
      `${where}: schemaVersion ${version} is not a bisection report version this runtime-bench reads (${READABLE_BISECT_REPORT_SCHEMA_VERSIONS.join(', ')})`,
      'upgrade runtime-bench to read newer reports',
    );
  return parseWithFriendlyErrors(BisectReportSchema, json, where, { code: 'BISECTION_INVALID', hint: HINT });
}

/** The canonical form of a report's text (two-space indent, final newline), as `bisect` writes it. */
export function canonicalBisectionText(text: string): string {
  return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
}
