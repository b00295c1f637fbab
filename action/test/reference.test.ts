// reference-handler: which of a result's targets the gate is told to divide by, and the check
// arguments the summary step builds from it (the CLI replaced by a recorder: argument building
// only; `check --reference` itself is tested in runner/test/unit/compare/cli.test.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { RbError } from '@runtime-bench/runner';
import type { RunResult } from '@runtime-bench/schemas';
import { sampleRunResult } from '../../schemas/test/sample.ts';
import { readInputs } from '../src/inputs.ts';
import { pinnedSpecs, referenceTargetIds } from '../src/reference.ts';
import { stepInstall, stepSummary } from '../src/steps.ts';
import type { StepContext } from '../src/step-context.ts';

/** A nightly's result: the watched handler at a moving version and the pinned reference beside it. */
function nightly(): RunResult {
  const base = sampleRunResult();
  const watched = base.targets[0]!;
  return {
    ...base,
    targets: [
      { ...watched, id: 'containerd-latest/runc-latest', handler: 'runc-latest' },
      {
        ...watched,
        id: 'containerd-latest/runc-1.2.6',
        handler: 'runc-1.2.6',
        oci: { ...watched.oci, version: '1.2.6' },
      },
    ],
    results: base.results.map((r) => ({ ...r, target: 'containerd-latest/runc-latest' })),
  };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('reference-handler', () => {
  test('pinned versions are the references; none by default', () => {
    expect(pinnedSpecs('runc@1.2.6, crun@1.21')).toEqual([
      { name: 'runc', version: '1.2.6' },
      { name: 'crun', version: '1.21' },
    ]);
    expect(pinnedSpecs(readInputs({})['reference-handler'])).toEqual([]);
  });

  test.each(['runc', 'runc@latest'])('%s is refused: a reference that moves is none', (spec) => {
    const error = (() => {
      try {
        pinnedSpecs(spec);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RbError);
    expect(String((error as Error).message)).toMatch(/^reference-handler runc.*fixed build/);
  });

  test('names the targets of the result that run the reference handler', () => {
    const inputs = readInputs({ INPUT_REFERENCE_HANDLER: 'runc@1.2.6' });
    expect(referenceTargetIds(inputs, nightly())).toEqual(['containerd-latest/runc-1.2.6']);
  });

  test('a reference the run did not measure: the error names it, the handlers there are, and the fix', () => {
    const inputs = readInputs({ INPUT_REFERENCE_HANDLER: 'runc@1.3.6' });
    expect(() => referenceTargetIds(inputs, nightly())).toThrow(
      /reference-handler runc@1\.3\.6: no target of this run uses the handler runc-1\.3\.6 \(it has runc-latest, runc-1\.2\.6\)/,
    );
  });

  test('a moving reference stops the install step before anything is installed', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rb-action-reference-'));
    dirs.push(workDir);
    const calls: string[][] = [];
    const ctx: StepContext = {
      inputs: readInputs({ INPUT_REFERENCE_HANDLER: 'runc@latest' }),
      workDir,
      workspace: workDir,
      setOutput: () => {},
      stepSummary: false,
      runtimeBench: async (args) => (calls.push(args), ''),
    };
    await expect(stepInstall(ctx)).rejects.toThrow(/reference-handler runc@latest/);
    expect(calls).toEqual([]);
  });

  test('the summary step passes each reference target to check as --reference', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rb-action-reference-'));
    dirs.push(workDir);
    await writeFile(join(workDir, 'result.json'), JSON.stringify(nightly()));
    const calls: string[][] = [];
    const ctx: StepContext = {
      inputs: readInputs({ INPUT_BASELINE: 'history', INPUT_REFERENCE_HANDLER: 'runc@1.2.6' }),
      workDir,
      workspace: workDir,
      setOutput: () => {},
      stepSummary: false,
      // Recorded, then stopped: what check would answer is not this test's concern.
      runtimeBench: async (args) => {
        calls.push(args);
        throw new Error('recorded');
      },
    };
    await expect(stepSummary(ctx)).rejects.toThrow('recorded');
    expect(calls).toEqual([
      [
        'check',
        '--history',
        join(workDir, 'history'),
        '--current',
        join(workDir, 'result.json'),
        '--json',
        '--threshold',
        '5',
        '--reference',
        'containerd-latest/runc-1.2.6',
      ],
    ]);
  });
});
