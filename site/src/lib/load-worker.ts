// A loading worker thread (see load-parallel.ts): reads, parses and validates the result files it
// is sent, with the runner's file reader and parseResult, and answers with each file's digest —
// or the problem that makes it unreadable or invalid — never with the whole result. A file whose
// content it has digested before (digest-cache.ts) is not parsed again.
import { hash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage, parseResult, readRegularBytes } from '@runtime-bench/runner';
import { compareRunRef } from './compare-data.ts';
import { DigestCache } from './digest-cache.ts';
import { digestRun, type RunDigest } from './run-digest.ts';
import type { CompareRunRef } from './views/compare.ts';
import type { WorkerReply, WorkerRequest, WireDigest } from './load-parallel.ts';
import { serveParent } from './worker-thread.ts';

type Shape = Pick<RunDigest, 'definitions' | 'keys'>;

/** What the cache keeps per file content; the definitions are kept once per shape. */
interface Cached {
  runId: string;
  startedAt: string;
  digest: Omit<RunDigest, 'definitions' | 'keys'>;
  ref: CompareRunRef;
  /** identifies the definitions and metric keys, which repeat from file to file */
  shapeKey: string;
}

const cacheDir = (workerData as { cacheDir?: string } | undefined)?.cacheDir;
const cache = cacheDir ? new DigestCache(cacheDir) : undefined;
/** Shapes this worker has seen (and, with a cache, stored), by key. */
const knownShapes = new Map<string, Shape>();
// Each distinct set of definitions and metric keys is sent once per worker.
const shapes = new Map<string, number>();

function digestOf(bytes: Buffer, where: string, file: string): Cached & { shape: Shape } {
  const key = cache?.key(bytes);
  const hit = key === undefined ? undefined : cache!.get<Cached>(key);
  const shape = hit && (knownShapes.get(hit.shapeKey) ?? cache!.get<Shape>(`shape-${hit.shapeKey}`));
  if (hit && shape) {
    knownShapes.set(hit.shapeKey, shape);
    // The same content may live at another path: the path is the file's own.
    hit.digest.meta.file = file;
    hit.ref.file = file;
    // Deserialised arrays may be views of a buffer that cannot be transferred: own copies can.
    const r = hit.digest.rows;
    hit.digest.rows = {
      key: r.key.slice(),
      target: r.target.slice(),
      status: r.status.slice(),
      median: r.median.slice(),
      errors: r.errors.slice(),
      n: r.n.slice(),
      samples: r.samples.slice(),
      reasons: r.reasons,
      parameters: r.parameters.slice(),
      enforcement: r.enforcement.slice(),
      enforcementWhy: r.enforcementWhy,
    };
    return { ...hit, shape };
  }
  const run = parseResult(bytes.toString('utf8'), where);
  const { definitions, keys, ...digest } = digestRun(run, file);
  const made: Cached = {
    runId: run.runId,
    startedAt: run.startedAt,
    digest,
    ref: compareRunRef(run, file),
    shapeKey: hash('sha1', JSON.stringify([definitions, keys])),
  };
  if (key !== undefined) {
    if (!knownShapes.has(made.shapeKey)) cache!.set(`shape-${made.shapeKey}`, { definitions, keys });
    cache!.set(key, made);
  }
  knownShapes.set(made.shapeKey, { definitions, keys });
  return { ...made, shape: { definitions, keys } };
}

serveParent<WorkerRequest>((request) => {
  const transfer = new Set<ArrayBuffer>();
  const results = request.files.map((entry): WireDigest | { problem: string } => {
    const bytes = readRegularBytes(entry.file);
    if (!Buffer.isBuffer(bytes)) return { problem: `${entry.file}: ${bytes.problem}` };
    try {
      const { runId, startedAt, digest, ref, shapeKey, shape } = digestOf(
        bytes,
        entry.file,
        `runs/${entry.path}`,
      );
      let shapeId = shapes.get(shapeKey);
      const isNew = shapeId === undefined;
      if (shapeId === undefined) shapes.set(shapeKey, (shapeId = shapes.size));
      for (const a of Object.values(digest.rows))
        if (ArrayBuffer.isView(a)) transfer.add(a.buffer as ArrayBuffer);
      return {
        path: entry.path,
        file: entry.file,
        runId,
        startedAt,
        digest,
        shapeId,
        ...(isNew ? { shape } : {}),
        ref,
      };
    } catch (error) {
      return { problem: errorMessage(error) };
    }
  });
  const reply: WorkerReply = { batch: request.batch, results };
  parentPort!.postMessage(reply, [...transfer]);
});
