import { InvalidArgumentError, type Command } from 'commander';
import type { RunResult } from '@runtime-bench/schemas';
import { GATE_DEFAULTS, planSampleSizes, type OutputFormat } from '../compare/index.ts';
import { readHistoryDir } from '../history/index.ts';
import { formatChange, markdownTable, terminalTable } from '../format/index.ts';
import { RbError } from '../errors.ts';
import { readResultFile } from '../results/io.ts';
import {
  addOutputOptions,
  outputFormat,
  parseCount,
  parseProbability,
  referenceOption,
  requireReferences,
} from './compare.ts';

function parseStepPercent(value: string): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n))
    throw new InvalidArgumentError('expected a finite percentage > 0, e.g. 10');
  return n / 100;
}

interface PlanCliOptions {
  history?: string;
  run?: string;
  step: number;
  window: number;
  alpha: number;
  power: number;
  reference: string[];
  format: OutputFormat;
  json?: boolean;
}

/** `runtime-bench plan`: the samples per night each benchmark needs to detect a given step. */
export function registerPlan(program: Command): void {
  const plan = program
    .command('plan')
    .option('--history <dir>', 'directory of result files (drift between runs is estimated from them)')
    .option('--run <file>', 'one result file (within-run noise only; drift assumed 0)')
    .option('--step <percent>', 'step to detect, in percent', parseStepPercent, 0.1)
    .option('--window <runs>', "the gate's baseline window", parseCount, GATE_DEFAULTS.window)
    .option(
      '--alpha <p>',
      'family-wise level, divided over the metrics (Holm)',
      parseProbability,
      GATE_DEFAULTS.alpha,
    )
    .option('--power <p>', 'probability of flagging the step on its first night', parseProbability, 0.9)
    .addOption(
      referenceOption(
        "a pinned reference handler (target id, repeatable; check's --reference): the other targets are planned divided by it",
      ),
    );
  addOutputOptions(plan)
    .addHelpText('after', '\nExample:\n  runtime-bench plan --history data/runs --step 10')
    .action(async (opts: PlanCliOptions) => {
      if (!opts.history === !opts.run)
        throw new RbError('USAGE_PLAN_INPUT', 'give exactly one of --history DIR or --run FILE');
      if (opts.window < 1) throw new RbError('USAGE_WINDOW', '--window must be at least 1');
      const runs: RunResult[] = opts.run
        ? [await readResultFile(opts.run)]
        : (await readHistoryDir(opts.history!)).entries.map((e) => e.run);
      requireReferences(
        opts.reference,
        [...new Set(runs.flatMap((r) => r.targets.map((t) => t.id)))].sort(),
        `no run of ${opts.history ?? opts.run} has this target`,
        'name one of: ',
      );
      const plan = planSampleSizes(runs, {
        step: opts.step,
        window: opts.window,
        alpha: opts.alpha,
        power: opts.power,
        references: opts.reference,
      });
      if (outputFormat(opts) === 'json') {
        process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
        return;
      }
      const header = [
        'benchmark',
        'target',
        'metric',
        'runs',
        'samples now',
        'within',
        'drift',
        'detectable now',
        'samples needed',
        'note',
      ];
      const pct = (v: number | null): string => (v === null ? '–' : `${(100 * v).toFixed(1)} %`);
      const rows = plan.rows.map((r) => [
        r.benchmark,
        r.target,
        r.metric,
        String(r.runs),
        String(r.samples),
        pct(r.sigmaWithin),
        pct(r.sigmaBetween),
        r.detectableNow === null ? '–' : formatChange(r.detectableNow),
        r.needed === null ? '–' : String(r.needed),
        r.note,
      ]);
      const head = `step ${formatChange(plan.step)} on its first night, power ${plan.power}, window ${plan.window}; alpha ${plan.alpha}, the one-night test's share over the ${plan.rowsPerRun} rows of a run (${plan.perTestAlpha.toPrecision(2)} each); ${plan.rows.length} metric series; ${plan.runs} run(s)`;
      process.stdout.write(
        `${head}\n\n${opts.format === 'markdown' ? markdownTable(header, rows) : terminalTable(header, rows)}\n`,
      );
    });
}
