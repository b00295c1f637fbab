// The regression gate of `runtime-bench check`, replayed by the Regressions page at build time.
// The gate comes from the runner's "./compare" entry, so the site and the CLI judge alike.
import { createGateReplay } from '@runtime-bench/runner/compare';
import type { Gate } from './lib/regressions.ts';

export const gate: Gate = (history) => {
  const replay = createGateReplay(history);
  return (current) => replay.report(current);
};
