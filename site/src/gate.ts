// The regression gate used by the Regressions page. runtime-bench check (runner/src/compare/) is
// not available yet, so there is none: the page says "no gate results yet" until this module
// returns its pure comparison.
import type { Gate } from './lib/regressions.ts';

export const gate: Gate | undefined = undefined;
