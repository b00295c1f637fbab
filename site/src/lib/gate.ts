// The regression gate of `runtime-bench check`, replayed at build time by the home page (the
// nightly status) and the Regressions page.
import { createGateReplay, type GateOptions, type GateReplay } from '@runtime-bench/runner/compare';
import type { Gate } from './regressions.ts';

export const gate: Gate = (history) => {
  const replay = createGateReplay(history);
  return (current) => replay.report(current);
};

/**
 * The gate with one replay per history: a second call with the same runs (the home page asks
 * about the newest run of the history the Regressions page replays) reuses the first replay and
 * its memo of reports instead of evaluating every run again. For one build's few histories;
 * `options` as check's (the history's annotations).
 */
export function sharedGate(options: GateOptions = {}): Gate {
  const replays = new Map<string, GateReplay>();
  return (history) => {
    const key = history.map((h) => `${h.file}\u0000${h.run.runId}`).join('\u0001');
    let replay = replays.get(key);
    if (!replay) replays.set(key, (replay = createGateReplay(history, options)));
    return (current) => replay.report(current);
  };
}
