// A gate finding whose change point came with a new runc release offers the exact bisect command.
import { describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import {
  bisectHints,
  decideVersionChanges,
  renderCheck,
  runGate,
  VERSION_CHANGE_DEFAULTS,
  withVersionChanges,
  type HistoryEntry,
} from '../../../src/compare/index.ts';
import {
  LIFECYCLE,
  lifecycleMetrics,
  night,
  RUNC,
  syntheticRun,
  type SyntheticOptions,
} from './synthetic.ts';

const entry = (run: RunResult): HistoryEntry => ({ run, file: `${run.runId}.json` });
const history = (step: number, version: string, from = 13): HistoryEntry[] =>
  Array.from({ length: 16 }, (_, i) => i + 1).map((d) => {
    const o: Partial<SyntheticOptions> =
      d >= from ? { targets: [{ ...RUNC, version, effect: { StartContainer: step } }] } : {};
    return entry(syntheticRun({ seed: 1000 + d, startedAt: night(d), runSigma: 0.01, ...o }));
  });

const COMMAND =
  'runtime-bench bisect --component runc --good 1.1.5 --bad 1.3.6 --benchmark operations.container.lifecycle --metric StartContainer';

describe('bisect hints in check', () => {
  test('a regression at a runc release change: the command in the table and the Markdown', () => {
    const all = history(1.25, '1.3.6');
    const report = runGate(all.at(-1)!, all.slice(0, -1));
    expect(bisectHints(report)).toEqual([COMMAND]);
    expect(renderCheck(report, 'table')).toContain(`to find the release and commit:\n  ${COMMAND}`);
    expect(renderCheck(report, 'markdown')).toContain(
      `To find the release and commit:\n\n\`\`\`sh\n${COMMAND}\n\`\`\``,
    );
  });
  test('no hint without a regression, or when the version did not change', () => {
    const flat = history(1, '1.3.6');
    expect(bisectHints(runGate(flat.at(-1)!, flat.slice(0, -1)))).toEqual([]);
    const sameVersion = history(1.25, '1.1.5');
    const report = runGate(sameVersion.at(-1)!, sameVersion.slice(0, -1));
    expect(report.rows.some((r) => r.verdict.includes('regression'))).toBe(true);
    expect(bisectHints(report)).toEqual([]);
  });
});

describe('bisect hints of a side-by-side version change', () => {
  // Tonight measured runc 1.4.4 (as runc@latest) beside last night's 1.4.3, the pair declared.
  const declaredNight = (effect: number, seed: number, declared = true): RunResult => {
    const run = syntheticRun({
      seed,
      startedAt: night(5),
      n: 200,
      metrics: lifecycleMetrics(0.05),
      targets: [
        { id: 'nightly/runc-latest', oci: 'runc', version: '1.4.4', effect: { StartContainer: effect } },
        { id: 'nightly/runc-1.4.3', oci: 'runc', version: '1.4.3' },
      ],
    });
    return {
      ...run,
      config: {
        ...run.config,
        roundOrder: 'shuffled',
        ...(declared
          ? { versionChanges: [{ before: 'nightly/runc-1.4.3', after: 'nightly/runc-latest' }] }
          : {}),
      },
    };
  };
  const hints = (run: RunResult) => {
    const changes = decideVersionChanges(entry(run), [], {
      ...VERSION_CHANGE_DEFAULTS,
      threshold: 0.05,
      thresholds: {},
    });
    // The first night of a host class: no history, only the side-by-side decision.
    return bisectHints(withVersionChanges(runGate(entry(run), []), changes));
  };

  test('a declared pair decided as a regression offers one bisection between its two versions, on the planted metric', () => {
    // +30 % planted in StartContainer alone: its regression is the surest of the lifecycle's.
    expect(hints(declaredNight(1.3, 7))).toEqual([
      `runtime-bench bisect --component runc --good 1.4.3 --bad 1.4.4 --benchmark ${LIFECYCLE} --metric StartContainer`,
    ]);
  });

  test('a regression across nights at the same version change adds no second bisection', () => {
    const run = declaredNight(1.3, 7);
    const changes = decideVersionChanges(entry(run), [], {
      ...VERSION_CHANGE_DEFAULTS,
      threshold: 0.05,
      thresholds: {},
    });
    const gate = runGate(entry(run), []);
    // A gate row naming the same change (as a change point across nights would) and another metric.
    const row = {
      kind: 'metric',
      verdict: 'regression',
      benchmark: LIFECYCLE,
      metric: 'RemoveContainer',
      changeLower: 0.9,
      changePoint: { versionChanges: ['runc 1.4.3 → 1.4.4'] },
    };
    const report = withVersionChanges({ ...gate, rows: [...gate.rows, row as never] }, changes);
    expect(bisectHints(report)).toEqual([
      `runtime-bench bisect --component runc --good 1.4.3 --bad 1.4.4 --benchmark ${LIFECYCLE} --metric StartContainer`,
    ]);
  });

  test('nothing without a regression, or for a pair the run only happened to measure', () => {
    expect(hints(declaredNight(1, 8))).toEqual([]);
    expect(hints(declaredNight(1.3, 7, false))).toEqual([]);
  });
});

describe('one bisection per version change across nights', () => {
  test('of two metrics regressed at the same release change, the surer one is bisected', () => {
    const all = history(1.25, '1.3.6');
    const report = runGate(all.at(-1)!, all.slice(0, -1));
    const start = report.rows.find((r) => r.kind === 'metric' && r.metric === 'StartContainer');
    if (start?.kind !== 'metric') throw new Error('the planted step is a metric row');
    const surer = { ...start, metric: 'RemovePodSandbox', changeLower: (start.changeLower ?? 0) + 1 };
    expect(bisectHints({ ...report, rows: [...report.rows, surer] })).toEqual([
      COMMAND.replace('--metric StartContainer', '--metric RemovePodSandbox'),
    ]);
  });
});
