// The regression gate of `runtime-bench check` (replay.ts runGate). One module per concept:
// types (the report), options (GATE_DEFAULTS), series and window (what a row is compared with),
// one module per row kind, change-point, decide (Holm, verdicts, coverage); the statistics are
// in stats/ (prediction, moderation, persistence).
export type * from './types.ts';
export { GATE_DEFAULTS, RUN_LEVEL_MIN_RUNS, type GateOptions } from './options.ts';
export { createGateReplay, runGate, type GateReplay } from './replay.ts';
export { NO_BASELINE_REASONS } from './window.ts';
export { COMMON_MODE_MIN_METRICS, NIGHT_FACTOR_METRIC } from './night-factor.ts';
