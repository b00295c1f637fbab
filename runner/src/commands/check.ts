import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  decideVersionChanges,
  GATE_DEFAULTS,
  renderCheck,
  runGate,
  VERSION_CHANGE_DEFAULTS,
  withVersionChanges,
  type OutputFormat,
} from '../compare/index.ts';
import { SPENDING_RULES, type SpendingRule } from '../stats/change-decision.ts';
import { readAnnotationsFile, readHistoryDir } from '../history/index.ts';
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

/**
 * commander parser for a finite percentage ≥ 0, returned as a fraction (5 → 0.05). Infinity (or
 * 1e400, which parses to it) would let any slowdown pass.
 */
function parsePercent(value: string): number {
  const n = Number(value);
  if (!(n >= 0) || !Number.isFinite(n) || value.trim() === '')
    throw new InvalidArgumentError('expected a finite percentage ≥ 0, e.g. 5');
  return n / 100;
}

/** Collects repeated --metric-threshold KEY=PERCENT into a record of fractions. */
function collectThreshold(value: string, previous: Record<string, number>): Record<string, number> {
  const match = /^(.+)=([^=]+)$/.exec(value);
  if (!match)
    throw new InvalidArgumentError(
      'expected METRIC=PERCENT or BENCHMARK:METRIC=PERCENT, e.g. StartContainer=10',
    );
  return { ...previous, [match[1]!]: parsePercent(match[2]!) };
}

interface CheckCliOptions {
  history: string;
  current: string;
  window: number;
  threshold: number;
  metricThreshold: Record<string, number>;
  errorRateThreshold: number;
  alpha: number;
  annotations?: string;
  reference: string[];
  format: OutputFormat;
  json?: boolean;
  failOnRegression?: boolean;
  changeAlpha: number;
  changeLooks: number;
  changeSpending: SpendingRule;
}

/** `runtime-bench check --history DIR --current FILE`: the nightly regression gate. */
export function registerCheck(program: Command): void {
  const check = program
    .command('check')
    .requiredOption('--history <dir>', 'directory of earlier result files (read recursively)')
    .requiredOption('--current <file>', 'result file to check')
    .option(
      '--window <runs>',
      'baseline window: the last K comparable runs',
      parseCount,
      GATE_DEFAULTS.window,
    )
    .addOption(
      new Option('--threshold <percent>', 'smallest change that counts as a regression')
        .argParser(parsePercent)
        .default(GATE_DEFAULTS.threshold, String(GATE_DEFAULTS.threshold * 100)),
    )
    .option(
      '--metric-threshold <key=percent>',
      'per-metric threshold, KEY is METRIC or BENCHMARK:METRIC (repeatable)',
      collectThreshold,
      {} as Record<string, number>,
    )
    .addOption(
      new Option('--error-rate-threshold <points>', 'smallest rise of the error rate, in percentage points')
        .argParser(parsePercent)
        .default(GATE_DEFAULTS.errorRateThreshold, String(GATE_DEFAULTS.errorRateThreshold * 100)),
    )
    .option('--alpha <p>', 'family-wise significance level (Holm)', parseProbability, GATE_DEFAULTS.alpha)
    .option(
      '--annotations <file>',
      'annotations file (default: annotations.json/.yaml at the top of the history)',
    )
    .option(
      '--change-alpha <p>',
      "error rate of a side-by-side version change's decision, over its metrics and nights",
      parseProbability,
      VERSION_CHANGE_DEFAULTS.alpha,
    )
    .option(
      '--change-looks <nights>',
      'nights a side-by-side pair may be measured on before an unclear metric stays unclear',
      parseCount,
      VERSION_CHANGE_DEFAULTS.looks,
    )
    .addOption(
      new Option('--change-spending <rule>', 'how the error rate is spent over those nights')
        .choices([...SPENDING_RULES])
        .default(VERSION_CHANGE_DEFAULTS.spending),
    )
    .addOption(
      referenceOption(
        'a pinned reference handler of the current run (target id, repeatable): the other targets divide each metric by its median the same night',
      ),
    );
  addOutputOptions(check)
    .option(
      '--fail-on-regression',
      'exit with status 1 when there is a new regression (ongoing ones do not fail)',
    )
    .addHelpText(
      'after',
      `
Example:
  runtime-bench check --history data/runs --current result.json --metric-threshold StartContainer=10 --fail-on-regression
  runtime-bench check --history data/runs --current result.json --reference containerd-latest/runc-1.2.6`,
    )
    .action(async (opts: CheckCliOptions) => {
      if (opts.window < 1) throw new RbError('USAGE_WINDOW', '--window must be at least 1');
      const current = await readResultFile(opts.current);
      requireReferences(
        opts.reference,
        current.targets.map((t) => t.id),
        `no such target in ${opts.current}`,
        'name one of its targets: ',
      );
      const history = await readHistoryDir(opts.history);
      const annotations = opts.annotations
        ? await readAnnotationsFile(opts.annotations)
        : history.annotations;
      const report = runGate({ run: current, file: opts.current }, history.entries, {
        window: opts.window,
        alpha: opts.alpha,
        threshold: opts.threshold,
        thresholds: opts.metricThreshold,
        errorRateThreshold: opts.errorRateThreshold,
        annotations,
        references: opts.reference,
      });
      const changes = decideVersionChanges({ run: current, file: opts.current }, history.entries, {
        alpha: opts.changeAlpha,
        looks: opts.changeLooks,
        spending: opts.changeSpending,
        threshold: opts.threshold,
        thresholds: opts.metricThreshold,
      });
      const full = withVersionChanges(report, changes);
      process.stdout.write(renderCheck(full, outputFormat(opts)));
      const regressions = report.counts.regression + full.versionChangeCounts!.regression;
      if (opts.failOnRegression && regressions > 0)
        throw new RbError(
          'REGRESSION',
          `${regressions} new regression(s) in ${opts.current} (${report.counts.regression} across nights, ${full.versionChangeCounts!.regression} of a version change side by side)`,
          'see the report above; a baseline reset in the history annotations accepts an intended change',
        );
    });
}
