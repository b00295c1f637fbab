import { rm } from 'node:fs/promises';
import {
  RESULT_SCHEMA_VERSION,
  type Component,
  type Config,
  type HostFix,
  type RunResult,
} from '@runtime-bench/schemas';
import { readHostFingerprint } from '../host/fingerprint.ts';
import { assembleBenchmarkResult, configHash, newRunId } from '../results/assemble.ts';
import { runLabel } from '../suites/pods.ts';
import { selectBenchmarks } from '../suites/registry.ts';
import { TOOL_VERSION, toolGitCommit } from '../version.ts';
import { orchestrate, type ProgressEvent } from './orchestrate.ts';
import { prepareEndpoints } from './targets.ts';

export interface ExecuteOptions {
  config: Config;
  signal: AbortSignal;
  onProgress: (event: ProgressEvent) => void;
  log: (line: string) => void;
  now?: () => Date;
}

function uniqueComponents(components: Component[]): Component[] {
  const seen = new Map<string, Component>();
  for (const c of components) seen.set(`${c.role}\u0000${c.name}\u0000${c.version}\u0000${c.path ?? ''}`, c);
  return [...seen.values()];
}

function uniqueFixes(fixes: HostFix[]): HostFix[] {
  return [...new Map(fixes.map((f) => [f.id, f])).values()];
}

/**
 * One benchmark run from a validated config to a complete (or, after a signal, incomplete)
 * result document. Every pod it created is gone when it returns, whatever happened.
 */
export async function executeRun(opts: ExecuteOptions): Promise<RunResult> {
  const now = opts.now ?? (() => new Date());
  const started = now();
  const runId = newRunId(started);
  const benchmarks = selectBenchmarks(opts.config.benchmarks, opts.config.skip);
  const endpoints = await prepareEndpoints(opts.config, runId);
  let cleanupProblems: string[] = [];
  try {
    const { slots, trackers } = await orchestrate({
      config: opts.config,
      benchmarks,
      endpoints,
      runId,
      signal: opts.signal,
      onProgress: opts.onProgress,
    });
    for (const [endpoint, tracker] of trackers)
      cleanupProblems = cleanupProblems.concat(await tracker.cleanup(endpoint.client, runLabel(runId)));
    for (const p of cleanupProblems) opts.log(`cleanup: ${p}`);
    const host = await readHostFingerprint(uniqueFixes(endpoints.flatMap((e) => e.hostFixes)));
    const interrupted = opts.signal.aborted;
    const reason = opts.signal.reason;
    return {
      schemaVersion: RESULT_SCHEMA_VERSION,
      runId,
      status: interrupted ? 'incomplete' : 'complete',
      ...(interrupted
        ? { incompleteReason: `interrupted by ${typeof reason === 'string' ? reason : 'a signal'}` }
        : {}),
      startedAt: started.toISOString(),
      finishedAt: now().toISOString(),
      tool: {
        name: 'runtime-bench',
        version: TOOL_VERSION,
        gitCommit: toolGitCommit(),
        node: process.version,
      },
      host,
      components: uniqueComponents(endpoints.flatMap((e) => e.components)),
      config: opts.config,
      configHash: configHash(opts.config),
      targets: endpoints.flatMap((e) => e.targets.map((t) => t.record)),
      benchmarks: benchmarks.map((b) => b.definition),
      results: slots.map((s) =>
        assembleBenchmarkResult(
          s.accumulator,
          s.targetId,
          s.benchmark.parameters(opts.config) as Record<string, unknown>,
          opts.config.errorThreshold,
        ),
      ),
    };
  } finally {
    for (const e of endpoints) {
      e.client.close();
      if (cleanupProblems.length === 0) await rm(e.logDir, { recursive: true, force: true });
    }
  }
}
