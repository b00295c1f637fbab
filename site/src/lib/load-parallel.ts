// Loads a data directory of ten thousand result files within a build's time budget: the files
// are listed here (the runner's directory rules), read, parsed and validated in worker threads
// (load-worker.ts, one per core), and each comes back as a digest (site-index.ts) rather than a
// whole result, so the build holds numbers in columns, not two gigabytes of parsed JSON. The
// rules of a load are loadRuns' (load.ts): every problem is reported and any one fails the build.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  checkedLoad,
  jsonFiles,
  listResultDir,
  parseResult,
  readRegularFile,
  type DirEntry,
  type LoadedEntry,
} from '@runtime-bench/runner';
import { assertDataDir, LOAD_OPTIONS, type LoadedRun } from './load.ts';
import { IndexBuilder } from './index-builder.ts';
import type { RunDigest } from './run-digest.ts';
import type { SiteIndex } from './site-index.ts';
import type { CompareRunRef } from './views/compare.ts';
import { startWorker, type WorkerThread } from './worker-thread.ts';

/** What a worker is asked: a batch of files. */
export interface WorkerRequest {
  batch: number;
  files: DirEntry[];
}

/** One file as a worker answers it: its digest, and its definitions only when first seen. */
export interface WireDigest {
  path: string;
  file: string;
  runId: string;
  startedAt: string;
  digest: Omit<RunDigest, 'definitions' | 'keys'>;
  shapeId: number;
  shape?: Pick<RunDigest, 'definitions' | 'keys'>;
  ref: CompareRunRef;
}

export interface WorkerReply {
  batch: number;
  results: (WireDigest | { problem: string })[];
}

/** Files per request: small enough to balance two workers, large enough to keep messages few. */
const BATCH = 32;

export interface LoadedSite {
  index: SiteIndex;
  /** every run, as the compare client picks it, in the order of index.runs */
  refs: CompareRunRef[];
  /** every run's file on disk, in the order of index.runs */
  diskFiles: string[];
}

/** Reads every result file of the data directory in worker threads and indexes them. */
export async function loadSite(
  dataDir: string,
  workerFile: string,
  options: { threads?: number; cacheDir?: string } = {},
): Promise<LoadedSite> {
  const threads = options.threads ?? availableParallelism();
  assertDataDir(dataDir);
  const runsDir = join(dataDir, 'runs');
  const listing = existsSync(runsDir) ? listResultDir(runsDir, jsonFiles) : { files: [], problems: [] };
  const batches: DirEntry[][] = [];
  for (let i = 0; i < listing.files.length; i += BATCH) batches.push(listing.files.slice(i, i + BATCH));
  const replies = await runWorkers(
    batches,
    workerFile,
    Math.max(1, Math.min(threads, batches.length)),
    options.cacheDir,
  );
  const entries: (LoadedEntry<{ digest: RunDigest; ref: CompareRunRef }> | { problem: string })[] = [];
  for (const reply of replies) {
    for (const r of reply.results) {
      if ('problem' in r) {
        entries.push(r);
        continue;
      }
      const digest: RunDigest = { ...r.digest, ...reply.shapes.get(r.shapeId)! };
      entries.push({
        path: r.path,
        file: r.file,
        runId: r.runId,
        startedAt: r.startedAt,
        value: { digest, ref: r.ref },
      });
    }
  }
  const loaded = checkedLoad(
    listing.problems.map((p) => `${p.file}: ${p.message}`),
    entries,
    LOAD_OPTIONS,
  );
  const builder = new IndexBuilder();
  for (const entry of loaded) builder.add(entry.value.digest);
  const index = builder.finish();
  // each run's targets with the lineage the index followed them by (a renamed target keeps its pair)
  const lineage = loaded.map(() => ({}) as Record<string, string>);
  for (const t of index.runTargets) lineage[t.run]![t.targetId] = t.combo;
  return {
    index,
    refs: loaded.map((e, i) => ({ ...e.value.ref, lineage: lineage[i]! })),
    diskFiles: loaded.map((e) => e.file),
  };
}

/** The replies to every batch, in batch order, each with the shapes its worker had sent by then. */
async function runWorkers(
  batches: DirEntry[][],
  workerFile: string,
  count: number,
  cacheDir: string | undefined,
): Promise<(WorkerReply & { shapes: Map<number, Pick<RunDigest, 'definitions' | 'keys'>> })[]> {
  if (batches.length === 0) return [];
  const replies: (WorkerReply & { shapes: Map<number, Pick<RunDigest, 'definitions' | 'keys'>> })[] = [];
  let next = 0;
  const threads: WorkerThread[] = [];
  try {
    await Promise.all(
      // No more workers than batches: a spare one would only load its modules to be ended.
      Array.from({ length: Math.min(count, batches.length) }, () => {
        const thread = startWorker(workerFile, { workerData: { cacheDir } });
        threads.push(thread);
        const { worker } = thread;
        // A worker's shapes arrive in its own replies, in order; batches refer to them by id.
        const shapes = new Map<number, Pick<RunDigest, 'definitions' | 'keys'>>();
        return new Promise<void>((resolve, reject) => {
          const send = () => {
            if (next >= batches.length) return resolve();
            const batch = next++;
            worker.postMessage({ batch, files: batches[batch]! } satisfies WorkerRequest);
          };
          worker.on('message', (reply: WorkerReply) => {
            for (const r of reply.results) if ('shape' in r && r.shape) shapes.set(r.shapeId, r.shape);
            replies[reply.batch] = { ...reply, shapes };
            send();
          });
          worker.on('error', reject);
          worker.on('exit', (code) => {
            if (next < batches.length || code !== 0)
              reject(new Error(`a loading worker exited with code ${code}`));
          });
          send();
        });
      }),
    );
  } finally {
    // After a failure the others stop taking batches (next is past the end or the load has
    // failed); each ends after the batch it is on.
    next = batches.length;
    await Promise.all(threads.map((t) => t.end()));
  }
  return replies;
}

/** The full, validated results of some runs (the few the gate and the compare pairs read). */
export function loadFullRuns(site: LoadedSite, runIndexes: readonly number[]): LoadedRun[] {
  return runIndexes.map((i) => {
    const file = site.diskFiles[i]!;
    const text = readRegularFile(file);
    if (typeof text !== 'string') throw new Error(`${file}: ${text.problem}`);
    return { run: parseResult(text, file), file: site.index.runs[i]!.file };
  });
}
