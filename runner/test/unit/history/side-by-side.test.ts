// Before tonight's run: which previous versions to measure beside the new ones. The planner on
// plain nights, and `runtime-bench data side-by-side` against a real bare repository whose data
// branch holds nights of this host's class and of another.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunResult } from '@runtime-bench/schemas';
import { planSideBySide } from '../../../src/compare/side-by-side-plan.ts';
import { VERSION_CHANGE_DEFAULTS } from '../../../src/compare/version-change.ts';
import { readHostFingerprint } from '../../../src/host/fingerprint.ts';
import { relativeRunPath } from '../../../src/results/layout.ts';
import { lifecycleMetrics, night, syntheticRun } from '../compare/synthetic.ts';
import { createSandbox, pushDataBranch, runCli, type Sandbox } from '../publish/helpers.ts';

const options = { ...VERSION_CHANGE_DEFAULTS, threshold: 0.05, thresholds: {} };
const ID = 'nightly/runc-latest';
const PREVIOUS = 'nightly/runc-1.4.3';

/** A night of the tracked target at `version`, with the previous version declared beside it when given. */
function nightOf(day: number, version: string, previous?: { version: string; effect: number }): RunResult {
  const run = syntheticRun({
    seed: day,
    startedAt: night(day),
    n: 200,
    metrics: lifecycleMetrics(0.05),
    targets: [
      { id: ID, oci: 'runc', version, effect: { StartContainer: previous?.effect ?? 1 } },
      ...(previous ? [{ id: PREVIOUS, oci: 'runc', version: previous.version }] : []),
    ],
  });
  return previous
    ? {
        ...run,
        config: { ...run.config, roundOrder: 'shuffled', versionChanges: [{ before: PREVIOUS, after: ID }] },
      }
    : run;
}

describe('planSideBySide', () => {
  test('a runtime that moved since its last night gets that night’s version beside it', () => {
    const plan = planSideBySide(
      [{ id: ID, version: '1.4.4' }],
      [nightOf(1, '1.4.2'), nightOf(2, '1.4.3')],
      options,
    );
    expect(plan.pairs).toEqual([
      expect.objectContaining({ target: ID, name: 'runc', from: '1.4.3', to: '1.4.4', look: 1 }),
    ]);
    expect(plan.notes).toEqual([]);
  });

  test('no earlier night, or the same version without a pair: nothing beside it, and a note says why', () => {
    expect(planSideBySide([{ id: ID, version: '1.4.4' }], [], options)).toEqual({
      pairs: [],
      notes: [expect.stringMatching(/no earlier night/)],
    });
    const same = planSideBySide([{ id: ID, version: '1.4.3' }], [nightOf(2, '1.4.3')], options);
    expect(same.pairs).toEqual([]);
    expect(same.notes[0]).toMatch(/no version change/);
  });

  test('a pair still unclear is measured again; a decided one is not; after `looks` nights it stops', () => {
    // +4 % at a 5 % threshold: its interval at 200 rounds reaches past 5 %, so neither same nor a regression.
    const unclear = nightOf(3, '1.4.4', { version: '1.4.3', effect: 1.04 });
    const again = planSideBySide([{ id: ID, version: '1.4.4' }], [nightOf(2, '1.4.3'), unclear], options);
    const decided = planSideBySide(
      [{ id: ID, version: '1.4.4' }],
      [nightOf(3, '1.4.4', { version: '1.4.3', effect: 1.3 })],
      options,
    );
    expect(decided.pairs).toEqual([]);
    expect(decided.notes[0]).toMatch(/decided after 1 night/);
    expect(again.pairs).toEqual([expect.objectContaining({ from: '1.4.3', to: '1.4.4', look: 2 })]);
    // Only the planted metric is still open; the others' intervals lie inside ±5 %.
    expect(again.pairs[0]!.why).toMatch(
      /unclear after 1 night\(s\) \(operations\.container\.lifecycle:StartContainer\)$/,
    );
    const spent = planSideBySide(
      [{ id: ID, version: '1.4.4' }],
      [3, 4, 5].map((d) => nightOf(d, '1.4.4', { version: '1.4.3', effect: 1.04 })),
      options,
    );
    expect(spent.pairs).toEqual([]);
    expect(spent.notes[0]).toMatch(/measured on 3 nights, the most/);
  });
});

describe('runtime-bench data side-by-side (real git, a local bare remote)', () => {
  let box: Sandbox;
  beforeEach(async () => {
    box = await createSandbox();
  });
  afterEach(async () => box.cleanup());

  test("reads the last night of this host's class, not another class's newer one", async () => {
    const here = await readHostFingerprint([]);
    const mine = { ...nightOf(2, '1.4.3'), host: here };
    const other = { ...nightOf(4, '1.4.0'), host: { ...here, cpus: here.cpus + 64 } };
    await pushDataBranch(
      box,
      Object.fromEntries(
        [mine, other].map((run) => [`data/runs/${relativeRunPath(run)}`, JSON.stringify(run)]),
      ),
    );
    const clone = await box.clone('ws');
    const result = await runCli(['data', 'side-by-side', '--target', `${ID}=1.4.4`, '--json'], {
      cwd: clone,
      env: box.env,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as ReturnType<typeof planSideBySide>;
    expect(plan.pairs.map((p) => [p.target, p.from, p.to, p.look])).toEqual([[ID, '1.4.3', '1.4.4', 1]]);
    expect(plan.pairs[0]!.why).toContain(mine.runId);
  });

  test('a malformed --target is refused naming the form, not with a trace', async () => {
    const clone = await box.clone('ws');
    const result = await runCli(['data', 'side-by-side', '--target', 'nightly/runc-latest'], {
      cwd: clone,
      env: box.env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/TARGET-ID=VERSION/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
