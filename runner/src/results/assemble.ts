import { createHash, randomBytes } from 'node:crypto';
import {
  finishedRunStatus,
  RESULT_SCHEMA_VERSION,
  runIdStamp,
  type BenchmarkDefinition,
  type BenchmarkResult,
  type Component,
  type Config,
  type Errors,
  type HostFingerprint,
  type MetricResult,
  type RunResult,
  type Target,
} from '@runtime-bench/schemas';
import { summarize } from '../stats/descriptive.ts';

/** What one repetition of a benchmark produced: what the accumulator records and a run's journal keeps. */
export interface RepetitionOutcome {
  /** metric name → sample value */
  values: Record<string, number>;
  /** metric name → why it has no sample this time */
  errors: Record<string, string>;
  /** metric name → where this sample was read from, for a metric with sources of different resolution. */
  sources?: Record<string, string>;
  /** The attempt as a whole failed (counts towards the error rate). */
  failure?: string;
  /** The runtime refuses what the benchmark needs: a result, not an error; no further attempts. */
  unsupported?: string;
}

/** At most this many distinct error messages are kept per metric (the count is always exact). */
export const MAX_ERROR_MESSAGES = 20;

/** Collects one benchmark × target's samples and errors as iterations come in. */
export class BenchmarkAccumulator {
  readonly samples = new Map<string, number[]>();
  readonly errors = new Map<string, Map<string, number>>();
  /** metric → source → samples read from it (only metrics whose iterations name a source). */
  readonly sources = new Map<string, Map<string, number>>();
  attempts = 0;
  failedAttempts = 0;
  unsupported: string | undefined;
  interrupted = false;
  readonly failureMessages = new Map<string, number>();

  readonly definition: BenchmarkDefinition;

  constructor(definition: BenchmarkDefinition) {
    this.definition = definition;
    for (const m of definition.metrics) {
      this.samples.set(m.name, []);
      this.errors.set(m.name, new Map());
    }
  }

  record(outcome: RepetitionOutcome): void {
    this.attempts++;
    if (outcome.failure) {
      this.failedAttempts++;
      this.failureMessages.set(outcome.failure, (this.failureMessages.get(outcome.failure) ?? 0) + 1);
    }
    for (const [name, value] of Object.entries(outcome.values)) {
      if (!Number.isFinite(value)) {
        this.addError(name, `non-finite value ${value}`);
        continue;
      }
      const samples = this.samples.get(name);
      if (!samples) continue;
      samples.push(value);
      const source = outcome.sources?.[name];
      if (source) {
        const counts = this.sources.get(name) ?? new Map<string, number>();
        this.sources.set(name, counts.set(source, (counts.get(source) ?? 0) + 1));
      }
    }
    for (const [name, message] of Object.entries(outcome.errors)) this.addError(name, message);
  }

  private addError(metric: string, message: string): void {
    const counts = this.errors.get(metric);
    if (counts) counts.set(message, (counts.get(message) ?? 0) + 1);
  }
}

function errorsOf(counts: Map<string, number>): Errors {
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return {
    count: sorted.reduce((n, [, c]) => n + c, 0),
    messages: sorted.slice(0, MAX_ERROR_MESSAGES).map(([m]) => m),
  };
}

/**
 * The stored result of one benchmark × target. Status: unsupported when the runtime refused the
 * feature; interrupted when a signal cut it short; failed when nothing was measured; invalid when
 * the error rate exceeds the threshold (never silently averaged); ok otherwise.
 */
export function assembleBenchmarkResult(
  acc: BenchmarkAccumulator,
  targetId: string,
  parameters: Record<string, unknown>,
  errorThreshold: number,
): BenchmarkResult {
  const metrics: MetricResult[] = acc.definition.metrics.map((m) => {
    const samples = acc.samples.get(m.name) ?? [];
    const sources = acc.sources.get(m.name);
    return {
      name: m.name,
      unit: m.unit,
      direction: m.direction,
      samples,
      errors: errorsOf(acc.errors.get(m.name) ?? new Map()),
      summary: samples.length > 0 ? summarize(samples) : null,
      ...(sources ? { sources: Object.fromEntries(sources) } : {}),
    };
  });
  const base = {
    benchmark: acc.definition.name,
    target: targetId,
    parameters,
    attempts: acc.attempts,
    failedAttempts: acc.failedAttempts,
    metrics,
  };
  const topFailure = [...acc.failureMessages.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (acc.unsupported) return { ...base, status: 'unsupported', reason: acc.unsupported };
  if (acc.interrupted)
    return {
      ...base,
      status: 'interrupted',
      reason: `interrupted after ${acc.attempts} measured attempt(s)`,
    };
  const measured = metrics.some((m) => m.samples.length > 0);
  if (acc.attempts === 0 || !measured) {
    return {
      ...base,
      status: 'failed',
      reason: topFailure ? `no attempt succeeded: ${topFailure}` : 'no attempt was made',
    };
  }
  const rate = acc.failedAttempts / acc.attempts;
  if (rate > errorThreshold) {
    return {
      ...base,
      status: 'invalid',
      reason: `error rate ${(rate * 100).toFixed(1)} % (${acc.failedAttempts}/${acc.attempts}) exceeds the threshold of ${(errorThreshold * 100).toFixed(1)} %; most frequent: ${topFailure}`,
    };
  }
  return { ...base, status: 'ok' };
}

/** One result document's own part: where it ran and what it measured there (one per host). */
export interface ResultPart {
  host: HostFingerprint;
  components: Component[];
  targets: Target[];
  benchmarks: BenchmarkDefinition[];
  /** Each benchmark × target's accumulator, its target id and the parameters it ran with. */
  slots: readonly {
    accumulator: BenchmarkAccumulator;
    targetId: string;
    parameters: Record<string, unknown>;
  }[];
}

/**
 * The result document of every target kind, each benchmark × target assembled alike: incomplete
 * with the reason when the run was stopped (`incompleteReason`, from run/stop.ts); else partial
 * when some benchmark × target measured nothing (finishedRunStatus), complete otherwise.
 */
export function assembleRunResult(opts: {
  runId: string;
  startedAt: Date;
  finishedAt: Date;
  config: Config;
  incompleteReason: string | null;
  part: ResultPart;
  /** What measured: `toolRecord()` taken when the run started. */
  tool: RunResult['tool'];
}): RunResult {
  const { config, part } = opts;
  const results = part.slots.map((s) =>
    assembleBenchmarkResult(s.accumulator, s.targetId, s.parameters, config.errorThreshold),
  );
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId: opts.runId,
    status: opts.incompleteReason === null ? finishedRunStatus(results) : 'incomplete',
    ...(opts.incompleteReason === null ? {} : { incompleteReason: opts.incompleteReason }),
    startedAt: opts.startedAt.toISOString(),
    finishedAt: opts.finishedAt.toISOString(),
    tool: opts.tool,
    host: part.host,
    components: uniqueComponents(part.components),
    config,
    configHash: configHash(config),
    targets: part.targets,
    benchmarks: part.benchmarks,
    results,
  };
}

/** Components named once each (several endpoints may report the same runtime). */
function uniqueComponents(components: readonly Component[]): Component[] {
  const seen = new Map<string, Component>();
  for (const c of components) seen.set(`${c.role}\u0000${c.name}\u0000${c.version}\u0000${c.path ?? ''}`, c);
  return [...seen.values()];
}

/** Run ids sort by time and stay unique across parallel jobs: `<yyyymmddThhmmssZ>-<8 hex>`. */
export function newRunId(now: Date, random: () => string = () => randomBytes(4).toString('hex')): string {
  // The schema checks a run id against startedAt with this same function.
  return `${runIdStamp(now.toISOString())}-${random()}`;
}

/** JSON with object keys sorted at every level: the canonical form the config hash is taken over. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export function configHash(config: Config): string {
  return `sha256:${createHash('sha256').update(canonicalJson(config)).digest('hex')}`;
}
