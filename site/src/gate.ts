// The regression gate of `runtime-bench check`, replayed at build time by the home page (the
// nightly status) and the Regressions page.
import { createGateReplay } from '@runtime-bench/runner/compare';
import type { StatusGate } from './lib/views/status.ts';

export const gate: StatusGate = (history) => {
  const replay = createGateReplay(history);
  return (current) => replay.report(current);
};
