// Where bisection reports live in a data directory: <data dir>/bisections/<yyyy>/<mm>/<dd>/<id>.json,
// the date being the UTC date of the report's startedAt, beside runs/ (run-path.ts). `bisect` writes
// its report there (with its looks' runs under runs/ of its own data directory), and the site
// gives each report found there a page. Browser-safe, as run-path.ts.
import type { BisectReport } from '@runtime-bench/schemas';
import { utcDatePath } from './run-path.ts';

/** The directory of bisection reports inside a data directory. */
export const BISECTIONS_SUBDIR = 'bisections';
/** The directory of bisection reports on the data branch (beside RUNS_DIR). */
export const BISECTIONS_DIR = `data/${BISECTIONS_SUBDIR}`;

type Named = Pick<BisectReport, 'startedAt' | 'component' | 'good' | 'bad' | 'metric'>;

/** A commit hash as its 12-character abbreviation, anything else as it is. */
const short = (ref: string): string => (/^[0-9a-f]{40,64}$/.test(ref) ? ref.slice(0, 12) : ref);

/**
 * `20261127T001500Z-runc-1.1.5-1.2.0-StartContainer`: the start in UTC (as a run id's stamp) and
 * what was bisected, in characters safe in a file name and a URL.
 */
export function bisectionId(report: Named): string {
  const d = new Date(report.startedAt);
  if (Number.isNaN(d.getTime())) throw new Error(`not a date-time: ${report.startedAt}`);
  const stamp = d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const what = [report.component, short(report.good), short(report.bad), report.metric].join('-');
  return `${stamp}-${what.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
}

/** The path of a report relative to the bisections directory: `<yyyy>/<mm>/<dd>/<id>.json`. */
export function relativeBisectionPath(report: Named): string {
  return `${utcDatePath(report.startedAt)}/${bisectionId(report)}.json`;
}

/** The path of a report on the data branch, relative to its root. */
export function bisectionPath(report: Named): string {
  return `${BISECTIONS_DIR}/${relativeBisectionPath(report)}`;
}
