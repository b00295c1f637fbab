// The data every page reads, prepared once per build (or dev server) and shared by every page:
// the index of all runs (loaded in worker threads, load-parallel.ts), the compare client's run
// list, and the full results of the few newest runs the gate and the compare pairs replay.
// astro.config.ts's integration starts it when the build starts, so that loading overlaps with
// bundling; the pages await the same promise (globalThis, since the integration and the pages
// are separate bundles of this module).
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { EMPTY_ANNOTATIONS, type Annotations } from '@runtime-bench/runner/compare';
import { readHistoryAnnotations } from '@runtime-bench/runner/history';
import { hostClassOf } from '@runtime-bench/schemas';
import type { RenderedPair } from './compare-data.ts';
import { ComputePool } from './compute-pool.ts';
import { loadFullRuns, loadSite } from './load-parallel.ts';
import type { LoadedRun } from './load.ts';
import { REGRESSION_HISTORY, REGRESSION_WINDOW, type RegressionReport } from './regressions.ts';
import type { Verdict } from './significance.ts';
import type { SiteIndex } from './site-index.ts';
import { slugify } from './slug.ts';
import { STATUS_HISTORY, type HostStatus } from './views/status.ts';
import { matrixRowId, overview, type HostMatrix, type MatrixTests } from './views/overview.ts';
import type { CompareRunRef } from './views/compare.ts';

export interface SiteData {
  dataDir: string;
  index: SiteIndex;
  /** every run as the compare client picks it, in the order of index.runs */
  refs: CompareRunRef[];
  /**
   * The full results of the newest RECENT_RUNS runs of every host class, sorted by start time:
   * all the gate replay (status, regressions) and the pre-rendered compare pairs look at.
   */
  recent: LoadedRun[];
  /**
   * The computations that do not grow with the history but cost seconds (bootstrap intervals,
   * the gate replayed over the newest runs): started in compute worker threads as soon as the
   * files are loaded, so that they run while the main thread renders pages.
   */
  overview: () => Promise<HostMatrix[]>;
  /** the home page: each host class's newest run as the gate sees it */
  status: () => Promise<HostStatus[]>;
  /** the Regressions page: the gate replayed over the newest runs */
  regressions: () => Promise<RegressionReport>;
  /** the pre-rendered compare pairs with their reports */
  pairs: () => Promise<RenderedPair[]>;
}

/** Runs per host class whose full results are kept: the longest history any replay reads. */
export const RECENT_RUNS = Math.max(REGRESSION_WINDOW + REGRESSION_HISTORY, STATUS_HISTORY + 1);

/**
 * The worker threads' entries (load-worker.ts, compute-worker.ts, run by Node from the source) and
 * the digest cache directory (null: none).
 */
export interface LoadSettings {
  worker: string;
  computeWorker: string;
  cacheDir: string | null;
}

/** Loads every result file once per process and data directory; an invalid file rejects. */
export function prepareSiteData(dataDir: string, settings: LoadSettings): Promise<SiteData> {
  const g = globalThis as unknown as Record<symbol, Map<string, Promise<SiteData>> | undefined>;
  const key = Symbol.for('runtime-bench.site-data');
  const cache = (g[key] ??= new Map());
  let data = cache.get(dataDir);
  if (!data) {
    data = load(dataDir, settings);
    cache.set(dataDir, data);
  }
  return data;
}

async function load(dataDir: string, settings: LoadSettings): Promise<SiteData> {
  const site = await loadSite(
    dataDir,
    settings.worker,
    settings.cacheDir ? { cacheDir: settings.cacheDir } : {},
  );
  const { index } = site;
  const perHost = new Map<string, number>();
  const recentIndexes: number[] = [];
  for (let i = index.runs.length - 1; i >= 0; i--) {
    const host = index.runs[i]!.hostClassId;
    const n = perHost.get(host) ?? 0;
    if (n >= RECENT_RUNS) continue;
    perHost.set(host, n + 1);
    recentIndexes.push(i);
  }
  const recent = loadFullRuns(site, recentIndexes.reverse());
  // The host class of a full run must be the one its digest gave: both come from the same file.
  for (const [i, l] of recent.entries())
    if (slugify(hostClassOf(l.run.host)) !== index.runs[recentIndexes[i]!]!.hostClassId)
      throw new Error(`${l.file} changed while the site was built`);
  const pool = new ComputePool(settings.computeWorker, availableParallelism());
  const started = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => {
      // reported where a page awaits it
    });
    return p;
  };
  // The history's annotations (baseline resets, thresholds, the reference handlers), as `check
  // --history <data>/runs` reads them: the pages' verdicts are the nightly job's.
  const { annotations } = await runAnnotations(dataDir);
  const gate = started(
    pool.run<{ regressions: RegressionReport; status: HostStatus[] }>({
      task: 'gate',
      runs: recent,
      annotations,
    }),
  );
  const regressions = started(gate.then((g) => g.regressions));
  const status = started(gate.then((g) => g.status));
  // The gate replay is the longest task: queued first, so the shorter ones fill the other worker
  // meanwhile instead of the replay starting last and ending after them.
  const pairs = started(
    pool.run<RenderedPair[]>({ task: 'pairs', runs: recent, refs: recentIndexes.map((i) => site.refs[i]!) }),
  );
  const matrices = started(parallelOverview(index, pool));
  // Every task is queued by now (the overview's come from its own pass): once all have settled
  // the workers are ended, rather than left for the process's exit to tear down.
  void Promise.allSettled([gate, pairs, matrices]).then(() => pool.close());
  return {
    dataDir,
    index,
    refs: site.refs,
    recent,
    overview: () => matrices,
    status: () => status,
    regressions: () => regressions,
    pairs: () => pairs,
  };
}

/**
 * The overview with its significance tests run in the pool: a first pass collects every row's
 * samples under its (host class, metric) key, the pool tests them (two halves, one per worker),
 * a second pass looks each row's verdicts up by the same key.
 */
async function parallelOverview(index: SiteIndex, pool: ComputePool): Promise<HostMatrix[]> {
  const rows: MatrixTests[] = [];
  overview(index, (key, samples, direction) => {
    rows.push({ key, rows: samples, direction });
    return samples.map(() => ({ kind: 'untested', why: '' }));
  });
  const half = Math.ceil(rows.length / 2);
  const parts = await Promise.all([
    pool.run<[string, Verdict[]][]>({ task: 'verdicts', rows: rows.slice(0, half) }),
    pool.run<[string, Verdict[]][]>({ task: 'verdicts', rows: rows.slice(half) }),
  ]);
  const verdicts = new Map(parts.flat());
  return overview(index, (key) => {
    const v = verdicts.get(matrixRowId(key));
    if (!v) throw new Error(`no verdicts for host class ${key.hostClassId}, metric ${key.metricKey}`);
    return v;
  });
}

/** The annotations at the top of `<dataDir>/runs`, the directory the nightly job checks against. */
async function runAnnotations(dataDir: string): Promise<{ annotations: Annotations }> {
  const runs = join(dataDir, 'runs');
  const isDir = await stat(runs).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir ? readHistoryAnnotations(runs) : { annotations: EMPTY_ANNOTATIONS };
}
