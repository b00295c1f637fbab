// Every night is summarised and published, also the nights the operator most needs to see: an
// endpoint that died (the run step exits 69) or a cancel (130, 143). The conditions of action.yml
// and of the reusable workflow are read as YAML; the run step's signal forwarding runs for real.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { RbError } from '@runtime-bench/runner';
import { readInputs } from '../src/inputs.ts';
import { forwardSignals, stepRun } from '../src/steps.ts';
import type { StepContext } from '../src/step-context.ts';

const root = join(import.meta.dirname, '../..');
const action = parse(await readFile(join(root, 'action.yml'), 'utf8')) as {
  runs: { steps: { id?: string; if?: string }[] };
};
const workflow = parse(await readFile(join(root, '.github/workflows/runtime-bench.yml'), 'utf8')) as {
  jobs: Record<string, { if?: string; steps: { id?: string; if?: string; uses?: string }[] }>;
};
const condition = (id: string): string => action.runs.steps.find((s) => s.id === id)!.if ?? '';

describe('action.yml: the steps after the benchmark', () => {
  test.each(['history', 'summary', 'publish'])(
    '%s runs whenever the run step left a result, however the run step ended',
    (id) => {
      const cond = condition(id);
      // always(): not only after a successful run step (a non-zero exit of 69, 130 or 143 fails it).
      expect(cond).toMatch(/^always\(\) && /);
      // …and skipped when there is no result file: the run step names it in result-path.
      expect(cond).toContain("steps.run.outputs.result-path != ''");
      expect(cond).not.toMatch(/steps\.run\.(outcome|conclusion)|success\(\)/);
    },
  );

  test.each([69, 130, 143])(
    'a run command that exits %i after writing its partial result still names it in result-path',
    async (code) => {
      const workDir = await mkdtemp(join(tmpdir(), 'rb-every-night-'));
      try {
        const outputs: Record<string, string> = {};
        const ctx: StepContext = {
          inputs: readInputs({}),
          workDir,
          workspace: workDir,
          setOutput: (name, value) => (outputs[name] = value),
          stepSummary: false,
          // As `runtime-bench run` does when stopped: the partial result is written, then it fails.
          runtimeBench: async (args) => {
            await writeFile(args[args.indexOf('--out') + 1]!, '{}');
            throw new RbError('ACTION_STEP', `runtime-bench run failed (exit ${code})`);
          },
        };
        await expect(stepRun(ctx)).rejects.toThrow(`exit ${code}`);
        expect(outputs['result-path']).toBe(join(workDir, 'result.json'));
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    },
  );
});

describe('reusable workflow: report and publish jobs', () => {
  test.each(['report', 'publish'])('%s runs also after a failed or cancelled benchmark job', (job) => {
    const cond = workflow.jobs[job]!.if ?? '';
    expect(cond).toMatch(/^always\(\)/);
    expect(cond).not.toMatch(/cancelled|success\(\)|needs\.bench\.result/);
  });

  test("the bench job uploads whatever result the action's run step left", () => {
    const upload = workflow.jobs.bench!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe("always() && steps.bench.outputs.result-path != ''");
  });
});

describe('forwardSignals', () => {
  test("a cancel's SIGTERM reaches the CLI, which writes its partial result before the step ends", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rb-forward-'));
    try {
      const marker = join(dir, 'partial');
      // A stand-in for `runtime-bench run`: on SIGTERM it writes its result, then exits 143.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `process.on('SIGTERM', () => { require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'incomplete'); process.exit(143); }); process.stdout.write('ready'); setInterval(() => {}, 1000);`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const signals = new EventEmitter();
      const release = forwardSignals(signals, child);
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      signals.emit('SIGTERM', 'SIGTERM');
      expect(await exited).toBe(143);
      expect(await readFile(marker, 'utf8')).toBe('incomplete');
      release();
      expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
