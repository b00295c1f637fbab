// Which benchmark runs on which target of a CRI run: every benchmark on every handler of every
// endpoint, except those that run no container (scope "endpoint": image pulls), which measure the
// CRI daemon alone and run once per endpoint. Pure: the CRI kind builds its slots from this plan.

/** What the plan needs of a benchmark: whether its numbers depend on the handler. */
export interface PlannedBenchmark {
  scope?: 'endpoint';
}

/** What the plan needs of an endpoint: its targets (one per handler), in config order. */
export interface PlannedEndpoint {
  targets: readonly unknown[];
}

/**
 * The benchmark × endpoint × target triples of a run, in run order (benchmarks, then endpoints,
 * then handlers). An endpoint-scoped benchmark gets the endpoint's first target only: the result
 * then names a target as for any other benchmark, and the first is the one a reader expects (the
 * config's or the stack's first handler).
 */
export function planCriSlots<B extends PlannedBenchmark, E extends PlannedEndpoint>(
  benchmarks: readonly B[],
  endpoints: readonly E[],
): { benchmark: B; endpoint: E; target: E['targets'][number] }[] {
  return benchmarks.flatMap((benchmark) =>
    endpoints.flatMap((endpoint) =>
      (benchmark.scope === 'endpoint' ? endpoint.targets.slice(0, 1) : endpoint.targets).map((target) => ({
        benchmark,
        endpoint,
        target,
      })),
    ),
  );
}
