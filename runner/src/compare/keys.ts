import type { BenchmarkResult, RunResult, Target } from '@runtime-bench/schemas';

/**
 * Identity of a target across runs. `targets[].id` is only unique within one run, so history
 * matching also requires the same CRI name and OCI runtime name. Versions are deliberately not
 * part of it: a new runc version on the same target is exactly what nightly tracking must catch.
 */
export function targetIdentity(target: Target): string {
  return `${target.id} · cri ${target.cri.name} · oci ${target.oci.name}`;
}

/**
 * What a target measured, whatever the config called it: the CRI runtime, the runtime handler, the
 * OCI runtime and how the numbers were taken (for a pod-level target its RuntimeClass, for an
 * engine target the engine). A target renamed between runs ("containerd-1.6/runc" →
 * "containerd/runc") keeps this identity, so its history can still be found (see gate/series.ts).
 */
export function measuredIdentity(target: Target): string {
  const pod = target.kubernetes ? ` · RuntimeClass ${target.kubernetes.runtimeClass}` : '';
  return `cri ${target.cri.name} · handler ${target.handler} · oci ${target.oci.name} · ${target.transport}${pod}`;
}

/** The target entry a result belongs to (the schema guarantees it exists). */
export function targetOf(run: RunResult, result: BenchmarkResult): Target {
  const target = run.targets.find((t) => t.id === result.target);
  if (!target) throw new Error(`result of ${result.benchmark} names unknown target ${result.target}`);
  return target;
}

/** JSON with object keys sorted, so that equal parameters compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/**
 * The threshold (a fraction, 0.05 = 5 %) for one metric: the most specific entry of `overrides`
 * wins — "benchmark:metric" before "metric" — then `fallback`.
 */
export function thresholdFor(
  benchmark: string,
  metric: string,
  overrides: Readonly<Record<string, number>>,
  fallback: number,
): number {
  return overrides[`${benchmark}:${metric}`] ?? overrides[metric] ?? fallback;
}
