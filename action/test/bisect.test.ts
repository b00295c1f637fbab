// bisect-on-regression: the bisect step's arguments are check's offered command plus the action's
// budget, stack and files; the step itself with the CLI replaced by a recorder (argument building
// only; the bisection end to end is runner/test/integration/bisect-runc.test.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { RbError, bisectCommand, type BisectRequest } from '@runtime-bench/runner';
import {
  bisectPaths,
  bisectStackName,
  bisectStepArgs,
  keepBisectRequests,
  stepBisect,
  uniqueRequests,
} from '../src/bisect.ts';
import { readInputs } from '../src/inputs.ts';
import type { StepContext } from '../src/step-context.ts';

const REQUEST: BisectRequest = {
  component: 'runc',
  good: '1.1.5',
  bad: '1.3.6',
  benchmark: 'operations.container.lifecycle',
  metric: 'StartContainer',
  direction: 'slower',
};
const OTHER: BisectRequest = { ...REQUEST, metric: 'CreateContainer' };

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function context(workDir: string, env: Record<string, string>, runtimeBench: StepContext['runtimeBench']) {
  const outputs: Record<string, string> = {};
  const ctx: StepContext = {
    inputs: readInputs(env),
    workDir,
    workspace: workDir,
    setOutput: (n, v) => (outputs[n] = v),
    stepSummary: false,
    runtimeBench,
  };
  return { ctx, outputs };
}

describe('the bisect step', () => {
  test("runs check's command as it prints it, then the action's budget, stack and files", () => {
    const inputs = readInputs({ INPUT_BISECT_BUDGET: '90m', INPUT_STACK_NAME: 'nightly' });
    const args = bisectStepArgs(REQUEST, inputs, '/w', 0);
    // check prints `runtime-bench bisect …` with no quoting needed here: its words are the arguments
    const offered = bisectCommand(REQUEST).split(' ').slice(1);
    expect(args.slice(0, offered.length)).toEqual(offered);
    expect(args.slice(offered.length)).toEqual([
      '--clone-origin',
      '--budget',
      '90m',
      '--stack',
      'nightly-bisect',
      '--prefix',
      '/opt/runtime-bench',
      '--out',
      '/w/bisect-1.json',
      '--markdown',
      '/w/bisect-1.md',
      '--data-dir',
      '/w/bisect-1.runs',
    ]);
    // a metric that needs quoting in a shell is one argument here
    const odd = bisectStepArgs({ ...REQUEST, metric: 'a b', direction: 'faster' }, inputs, '/w', 1);
    expect(odd.slice(9, 13)).toEqual(['--metric', 'a b', '--direction', 'faster']);
  });

  test('a request naming its clone bisects that clone, not the origin', () => {
    const inputs = readInputs({});
    const args = bisectStepArgs({ ...REQUEST, repo: '/src/runc' }, inputs, '/w', 0);
    expect(args).toContain('--git-dir');
    expect(args).not.toContain('--clone-origin');
  });

  test('its stack is beside the action stack, under a name stack up accepts', () => {
    expect(bisectStackName('action')).toBe('action-bisect');
    const long = bisectStackName('a'.repeat(31));
    expect(long).toMatch(/^[a-z0-9][a-z0-9-]{0,30}$/);
  });

  test('keeps each offered bisection once, and none without bisect-on-regression', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rb-action-bisect-'));
    dirs.push(workDir);
    expect(uniqueRequests([REQUEST, OTHER, { ...REQUEST }])).toEqual([REQUEST, OTHER]);
    const off = context(workDir, {}, async () => '');
    await keepBisectRequests(off.ctx, [REQUEST]);
    expect(off.outputs.bisections).toBe('0');
    const on = context(workDir, { INPUT_BISECT_ON_REGRESSION: 'true' }, async () => '');
    await keepBisectRequests(on.ctx, [REQUEST, OTHER, REQUEST]);
    expect(on.outputs.bisections).toBe('2');
    expect(JSON.parse(await readFile(bisectPaths(workDir).requests, 'utf8'))).toEqual([REQUEST, OTHER]);
  });

  test('a bisection without a culprit still reports; one that wrote no report fails the step, after the others', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rb-action-bisect-'));
    dirs.push(workDir);
    const third: BisectRequest = { ...REQUEST, metric: 'StopContainer' };
    const calls: string[][] = [];
    const { ctx, outputs } = context(workDir, { INPUT_BISECT_ON_REGRESSION: 'true' }, async (args) => {
      calls.push(args);
      const out = args[args.indexOf('--out') + 1]!;
      const metric = args[args.indexOf('--metric') + 1];
      if (metric === 'CreateContainer')
        throw new RbError('ACTION_STEP', 'runtime-bench bisect failed (exit 70)');
      await writeFile(out, '{}');
      await writeFile(args[args.indexOf('--markdown') + 1]!, '### Bisection\n');
      // exit 1: no culprit found (no difference here), the report written all the same
      if (metric === 'StopContainer')
        throw new RbError('ACTION_STEP', 'runtime-bench bisect failed (exit 1)');
      return '';
    });
    await keepBisectRequests(ctx, [REQUEST, OTHER, third]);
    const error = await stepBisect(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).message).toMatch(
      /^1 bisection\(s\) wrote no report: runtime-bench bisect .*--metric CreateContainer: runtime-bench bisect failed \(exit 70\)$/,
    );
    expect(calls.map((a) => a[a.indexOf('--metric') + 1])).toEqual([
      'StartContainer',
      'CreateContainer',
      'StopContainer',
    ]);
    expect(outputs['bisect-reports']).toBe(
      [join(workDir, 'bisect-1.json'), join(workDir, 'bisect-3.json')].join('\n'),
    );
  });

  test('a budget that is no duration is refused, naming the input', () => {
    expect(() => readInputs({ INPUT_BISECT_BUDGET: 'soon' })).toThrow(/bisect-budget/);
    expect(readInputs({})['bisect-budget']).toBe('60m');
  });
});
