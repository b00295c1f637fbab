// The one place where pages get their data: the result files of the data directory, loaded and
// validated once per build and shared by every page.
import { buildIndex, type SiteIndex } from './lib/site-index.ts';
import { overview, type HostMatrix } from './lib/views/overview.ts';
import { loadRuns, type LoadedRun } from './lib/load.ts';

export interface SiteData {
  dataDir: string;
  loaded: LoadedRun[];
  index: SiteIndex;
  byRunId: Map<string, LoadedRun>;
  overview: () => HostMatrix[];
}

const KEY = Symbol.for('runtime-bench.site-data');

/** Loads every result file once; an invalid file throws, which fails the build naming it. */
export function siteData(): SiteData {
  const g = globalThis as unknown as Record<symbol, SiteData | undefined>;
  const cached = g[KEY];
  if (cached) return cached;
  const dataDir = __RB_DATA_DIR__;
  const loaded = loadRuns(dataDir);
  const index = buildIndex(loaded);
  let matrices: HostMatrix[] | undefined;
  const data: SiteData = {
    dataDir,
    loaded,
    index,
    byRunId: new Map(loaded.map((l) => [l.run.runId, l])),
    overview: () => (matrices ??= overview(index)),
  };
  g[KEY] = data;
  return data;
}

/** A link inside the site, below the configured base path. */
export function href(path: string): string {
  const base = import.meta.env.BASE_URL.replace(/\/$/, '');
  return `${base}/${path.replace(/^\//, '')}`;
}
