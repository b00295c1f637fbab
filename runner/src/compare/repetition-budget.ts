// Repetitions chosen by the power they buy within a time budget: how many times each headline
// benchmark of a suite runs so that the end-of-run verdict (compare/verdict.ts) can detect the
// smallest change, given each benchmark's spread and its seconds per repetition. The detectable
// change is the verdict's own (minimumDetectableRatio at the Holm level of its headline tests).
// Pure: the spreads come from `plan` (compare/plan.ts), the durations from committed runs.
import { minimumDetectableRatio, smallestRankTestP } from '../stats/index.ts';

/** One headline benchmark as the budget sees it. */
export interface BudgetedBenchmark {
  benchmark: string;
  /** Wall seconds of one repetition on one target (pods, setup and the measured work). */
  secondsPerRepetition: number;
  /** Within-run spread of ln(headline sample), as `plan` reports it (sigmaWithin). */
  logSpread: number;
}

export interface BudgetOptions {
  /** Seconds of measuring the suite may take, warm-ups and `fixedSeconds` included. */
  budgetSeconds: number;
  /** Targets each benchmark runs on (handlers of the run). */
  targets: number;
  /** Warm-up repetitions per benchmark and target (the config's `warmup`). */
  warmup: number;
  /** Seconds of the rest of the suite (benchmarks outside the verdict), spent whatever the choice. */
  fixedSeconds?: number;
  /** Family-wise level of the verdict; divided by the number of headline tests (Holm's strictest step). */
  alpha?: number;
  /** Power at which a change counts as detectable; the verdict's 0.8. */
  power?: number;
  /** The change worth detecting: a benchmark gets no more repetitions once it can detect this. */
  step?: number;
}

export interface BudgetChoice {
  benchmark: string;
  repetitions: number;
  /** Smallest change (fraction) the verdict could detect at this n per side; null: none at all. */
  detectable: number | null;
  /** Wall seconds of this benchmark over all targets, warm-ups included. */
  seconds: number;
}

export interface RepetitionBudget {
  /** The level each headline test must reach: alpha / number of headlines. */
  level: number;
  /** The fewest repetitions per side with which a rank test can reach `level` at all. */
  minimum: number;
  choices: BudgetChoice[];
  /** Seconds of the whole suite: the choices plus fixedSeconds. */
  seconds: number;
}

/** The fewest values per side whose most extreme arrangement reaches `level` (3 against 3: p 0.1). */
export function smallestSignificantN(level: number): number {
  let n = 1;
  while (smallestRankTestP(n, n) >= level) n++;
  return n;
}

/**
 * Every headline starts at the fewest repetitions that can be significant at the Holm level; the
 * seconds left then go, one repetition at a time, to the benchmark whose detectable change shrinks
 * most per second spent, until each detects `step` or the next repetition does not fit. Throws
 * when even the minimum exceeds the budget: fewer benchmarks, cheaper parameters or more time.
 */
export function chooseRepetitions(
  benchmarks: readonly BudgetedBenchmark[],
  options: BudgetOptions,
): RepetitionBudget {
  const { budgetSeconds, targets, warmup } = options;
  const fixedSeconds = options.fixedSeconds ?? 0;
  const step = options.step ?? 0.1;
  const power = options.power ?? 0.8;
  const level = (options.alpha ?? 0.05) / Math.max(1, benchmarks.length);
  const minimum = smallestSignificantN(level);
  const detectable = (b: BudgetedBenchmark, n: number): number | null =>
    minimumDetectableRatio(b.logSpread, n, n, { alpha: level, power });
  const costOf = (b: BudgetedBenchmark): number => b.secondsPerRepetition * targets;
  const n = benchmarks.map(() => minimum);
  const total = (): number =>
    fixedSeconds + benchmarks.reduce((s, b, i) => s + costOf(b) * (n[i]! + warmup), 0);
  if (total() > budgetSeconds)
    throw new RangeError(
      `the minimum of ${minimum} repetitions per headline takes ${total().toFixed(0)} s, over the budget of ${budgetSeconds} s`,
    );
  const open = new Set(benchmarks.map((_, i) => i));
  for (;;) {
    let best: { i: number; gain: number } | null = null;
    for (const i of open) {
      const b = benchmarks[i]!;
      const now = detectable(b, n[i]!);
      if (now === null || now <= step || total() + costOf(b) > budgetSeconds) {
        open.delete(i);
        continue;
      }
      const gain = (now - detectable(b, n[i]! + 1)!) / costOf(b);
      if (!best || gain > best.gain) best = { i, gain };
    }
    if (!best) break;
    n[best.i] = n[best.i]! + 1;
  }
  const choices = benchmarks.map((b, i) => ({
    benchmark: b.benchmark,
    repetitions: n[i]!,
    detectable: detectable(b, n[i]!),
    seconds: costOf(b) * (n[i]! + warmup),
  }));
  return { level, minimum, choices, seconds: total() };
}
