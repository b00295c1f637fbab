// The regression gate of `runtime-bench check`, replayed by the Regressions page at build time.
// runner/package.json exports no "./compare" entry yet, hence the relative import of its source;
// switch to '@runtime-bench/runner/compare' once that export exists.
import { createGateReplay } from '@runtime-bench/runner/compare';
import type { Gate } from './lib/regressions.ts';

export const gate: Gate = (history) => {
  const replay = createGateReplay(history);
  return (current) => replay.report(current);
};
