// A config with CRI targets and engine targets: one run, one result document, the two kinds
// prepared side by side and their slots in one repetition loop — each engine benchmark interleaved
// with its CRI-level counterpart when both are selected, so that engine minus CRI (the engine
// overhead, overhead/engine-runs.ts) compares numbers taken on the same host at the same time.
import { criTargets, type Config } from '@runtime-bench/schemas';
import type { ResultPart } from '../results/assemble.ts';
import { ENGINE_BENCHMARKS } from '../engine/benchmarks.ts';
import { engineCounterpart } from '../overhead/counterparts.ts';
import { engineKind } from '../engine/kind.ts';
import { RbError } from '../errors.ts';
import { BENCHMARKS, matchesPrefix, unknownBenchmarkHint } from '../suites/registry.ts';
import { criKind } from './cri-kind.ts';
import type { Slot } from '../run/orchestrate.ts';
import type { PreparedRun, TargetKind } from '../run/pipeline.ts';

const CRI_NAMES = BENCHMARKS.map((b) => b.definition.name);
const ENGINE_NAMES = ENGINE_BENCHMARKS.map((b) => b.definition.name);
const matchesAny = (names: readonly string[], prefix: string): boolean =>
  names.some((n) => matchesPrefix(n, prefix));

/**
 * The config the CRI kind sees: the prefixes of `benchmarks`, `skip` and `runsPerBenchmark` that
 * name CRI-level benchmarks (engine.* ones are the engine kind's). A prefix naming neither is an
 * error, as it is for a config of one kind.
 */
export function criPartOf(config: Config, where: string): Config {
  const fields = [
    ['benchmarks', config.benchmarks],
    ['skip', config.skip],
    ['runsPerBenchmark', Object.keys(config.runsPerBenchmark)],
  ] as const;
  for (const [field, prefixes] of fields)
    prefixes.forEach((p, i) => {
      if (!matchesAny(CRI_NAMES, p) && !matchesAny(ENGINE_NAMES, p))
        throw new RbError(
          'CONFIG_INVALID',
          `${where}: ${field}${field === 'runsPerBenchmark' ? `: "${p}"` : `[${i}]: "${p}"`} matches no benchmark`,
          unknownBenchmarkHint(
            p,
            [...CRI_NAMES, ...ENGINE_NAMES],
            `known benchmarks: ${[...CRI_NAMES, ...ENGINE_NAMES].join(', ')}`,
          ),
        );
    });
  const cri = (list: readonly string[]) => list.filter((p) => matchesAny(CRI_NAMES, p));
  const part: Config = {
    ...config,
    benchmarks: cri(config.benchmarks),
    skip: cri(config.skip),
    runsPerBenchmark: Object.fromEntries(
      Object.entries(config.runsPerBenchmark).filter(([p]) => matchesAny(CRI_NAMES, p)),
    ),
  };
  if (part.benchmarks.length === 0)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: benchmarks: [${config.benchmarks.join(', ')}] selects no CRI-level benchmark for the ${criTargets(config.targets).length} CRI target(s)`,
      'add the CRI-level counterparts of the engine benchmarks (e.g. startup.latency beside engine.startup.latency), or put the CRI targets in a config of their own',
    );
  return part;
}

/** CRI targets and engine targets of one config, run as one. */
export function mixedKind(config: Config, where = 'config'): TargetKind {
  const cri = criKind(criPartOf(config, where), where);
  const engine = engineKind(config, where, true);
  return combineKinds([cri, engine]);
}

/** One result part of the parts several kinds described on this one host. */
export function mergeParts(parts: readonly ResultPart[]): ResultPart {
  const first = parts[0];
  if (!first) throw new Error('mergeParts: no parts');
  // Every kind read the same host; only the fixes differ (a stack applies some, an engine none).
  const fixes = new Map(parts.flatMap((p) => p.host.hostFixes).map((f) => [f.id, f]));
  return {
    host: { ...first.host, hostFixes: [...fixes.values()] },
    components: parts.flatMap((p) => p.components),
    targets: parts.flatMap((p) => p.targets),
    benchmarks: parts.flatMap((p) => p.benchmarks),
    slots: parts.flatMap((p) => p.slots),
  };
}

/**
 * Kinds run together on this host: prepared in order (a prepare that throws closes the ones before
 * it), one loop over all their slots, one result document, closed in reverse order.
 */
export function combineKinds(kinds: readonly TargetKind[]): TargetKind {
  return {
    async prepare(ctx) {
      const runs: PreparedRun[] = [];
      try {
        for (const k of kinds) runs.push(await k.prepare(ctx));
      } catch (error) {
        for (const r of runs.reverse()) await r.close().catch(() => undefined);
        throw error;
      }
      const owner = new Map<Slot, PreparedRun>(runs.flatMap((r) => r.slots.map((s) => [s, r] as const)));
      const slots = runs.flatMap((r) => r.slots);
      const selected = new Set(slots.map((s) => s.definition.name));
      for (const s of slots) {
        const counterpart = engineCounterpart(s.definition.name)?.cri;
        if (counterpart && selected.has(counterpart)) s.interleaveWith = counterpart;
      }
      return {
        slots,
        signal: AbortSignal.any(runs.map((r) => r.signal)),
        beforeRecordingFailure: async (slot) => owner.get(slot)?.beforeRecordingFailure?.(slot),
        async finish() {
          const parts: ResultPart[] = [];
          for (const r of runs) parts.push(...(await r.finish()));
          return [mergeParts(parts)];
        },
        async close() {
          let first: unknown = null;
          for (const r of [...runs].reverse())
            await r.close().catch((error: unknown) => {
              first ??= error;
            });
          if (first !== null) throw first;
        },
      };
    },
  };
}
