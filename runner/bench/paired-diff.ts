// The verdict of runner/bench/cri-client.ts: our client against the Go client, call by call, from
// samples taken in turns. Pure, so the arithmetic is tested apart from the stack that feeds it.
import { median } from '../src/stats/descriptive.ts';
import { medianInterval, type MedianInterval } from '../src/stats/median-interval.ts';

/**
 * met: the paired median is within the target; within noise: it is not, but its interval reaches
 * the target; too few: it is not, and fewer than 6 pairs give no 95 % interval to judge by.
 */
export type PairedVerdict = 'met' | 'within noise' | 'NOT met' | 'too few';

export interface PairedRow {
  call: string;
  /** When the call ran: "back-to-back" or "after 60 ms" (the pause slept before it, untimed). */
  case: string;
  n: number;
  oursMedian: number;
  goMedian: number;
  /** Median of the paired differences ours − Go, in the samples' unit. */
  diff: number;
  /** Distribution-free 95 % interval of that median; null below 6 pairs. */
  interval: MedianInterval | null;
  verdict: PairedVerdict;
}

export function pairedVerdict(diff: number, interval: MedianInterval | null, target: number): PairedVerdict {
  if (Math.abs(diff) <= target) return 'met';
  if (!interval) return 'too few';
  return interval.lower <= target && interval.upper >= -target ? 'within noise' : 'NOT met';
}

/**
 * One row of the table: the k-th sample of ours and of Go's ran one after the other and met the
 * same state of the host, so their difference cancels the runtime's own spread (several ms on the
 * sandbox calls) and the median of the differences is the client's cost.
 */
export function pairedRow(
  call: string,
  when: string,
  ours: readonly number[],
  go: readonly number[],
  target: number,
): PairedRow {
  if (ours.length !== go.length || ours.length === 0)
    throw new RangeError(
      `${call} (${when}): paired samples need equal, non-zero counts; got ${ours.length} of ours and ${go.length} of Go's`,
    );
  const diffs = ours.map((v, k) => v - go[k]!);
  const diff = median(diffs);
  const interval = medianInterval(diffs);
  return {
    call,
    case: when,
    n: diffs.length,
    oursMedian: median(ours),
    goMedian: median(go),
    diff,
    interval,
    verdict: pairedVerdict(diff, interval, target),
  };
}
