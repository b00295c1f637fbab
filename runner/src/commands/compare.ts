import { InvalidArgumentError, Option, type Command } from 'commander';
import type { RunResult } from '@runtime-bench/schemas';
import {
  compareRuns,
  overheadReport,
  OUTPUT_FORMATS,
  renderCompare,
  type OutputFormat,
} from '../compare/index.ts';
import { RbError } from '../errors.ts';
import { readResultFile } from '../results/io.ts';
import { deprecationNote } from './vocabulary.ts';

/** commander parser for a number strictly between 0 and 1 (alpha, confidence). */
export function parseProbability(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('expected a number between 0 and 1, e.g. 0.05');
  return n;
}

/** commander parser for a non-negative integer. */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
}

/** commander parser for --format: table or markdown (json is the deprecated spelling of --json). */
function parseFormat(value: string): OutputFormat {
  if (!(OUTPUT_FORMATS as readonly string[]).includes(value))
    throw new InvalidArgumentError('expected table or markdown (JSON: --json)');
  return value as OutputFormat;
}

/**
 * The output options of compare, check and plan: `--format table|markdown` and `--json`, the
 * JSON flag of every command. `--format json`, the old spelling, still sets --json for a release.
 */
export function addOutputOptions(command: Command): Command {
  command
    .addOption(
      new Option('--format <format>', 'table | markdown')
        .argParser(parseFormat)
        .default('table' as OutputFormat),
    )
    .option('--json', 'print the report as JSON');
  command.on('option:format', (value: string) => {
    if (value !== 'json') return;
    deprecationNote('--format json', '--json');
    command.setOptionValueWithSource('json', true, 'cli');
  });
  return command;
}

/** The format the output options ask for. */
export function outputFormat(opts: { format: OutputFormat; json?: boolean }): OutputFormat {
  return opts.json ? 'json' : opts.format;
}

/** The repeatable --reference option of check and plan: pinned reference handlers by target id. */
export function referenceOption(description: string): Option {
  return new Option('--reference <target>', description)
    .argParser((value: string, previous: string[]) => [...previous, value])
    .default([] as string[]);
}

/**
 * Every --reference must name one of `known` (the target ids it can refer to); a usage error
 * otherwise, `absent` saying where it was looked for and the hint listing what there is.
 */
export function requireReferences(
  references: readonly string[],
  known: readonly string[],
  absent: string,
  hint: string,
): void {
  for (const reference of references)
    if (!known.includes(reference))
      throw new RbError(
        'USAGE_REFERENCE',
        `--reference ${reference}: ${absent}`,
        `${hint}${known.join(', ')}`,
      );
}

function requireTarget(run: RunResult, file: string, id: string, flag: string): void {
  if (!run.targets.some((t) => t.id === id))
    throw new RbError(
      'USAGE_UNKNOWN_TARGET',
      `${file}: no target "${id}" (given by ${flag})`,
      `targets in this file: ${run.targets.map((t) => t.id).join(', ') || 'none'}`,
    );
}

interface CompareCliOptions {
  baselineTarget?: string;
  target?: string;
  format: OutputFormat;
  json?: boolean;
  alpha: number;
  confidence: number;
  seed: number;
}

/** `runtime-bench compare A.json [B.json]`: metric-by-metric comparison with a verdict each. */
export function registerCompare(program: Command): void {
  const compare = program
    .command('compare')
    .argument('<baseline>', 'result file of the baseline')
    .argument(
      '[candidate]',
      'result file of the candidate; omit it to compare two targets of the baseline file',
    )
    .option('--baseline-target <id>', 'target id of the baseline, e.g. containerd/runc')
    .option('--target <id>', 'target id of the candidate, e.g. containerd/crun');
  addOutputOptions(compare)
    .option('--alpha <p>', 'family-wise significance level (Holm)', parseProbability, 0.05)
    .option('--confidence <level>', 'level of the ratio intervals', parseProbability, 0.95)
    .option('--seed <n>', 'bootstrap seed (the same seed gives the same intervals)', parseCount, 1)
    .addHelpText(
      'after',
      `
Examples:
  runtime-bench compare run.json --baseline-target containerd/runc --target containerd/crun
  runtime-bench compare monday.json tuesday.json --format markdown
  runtime-bench compare monday.json tuesday.json --json
  runtime-bench compare engines.json   # engine overhead: docker/runc over containerd/runc, …`,
    )
    .action(async (baselineFile: string, candidateFile: string | undefined, opts: CompareCliOptions) => {
      const baseline = await readResultFile(baselineFile);
      const candidate = candidateFile === undefined ? baseline : await readResultFile(candidateFile);
      const candidateLabel = candidateFile ?? baselineFile;
      // One file alone holds no pair to compare, but may hold engine and CRI-level targets whose
      // difference is the engine overhead: then that alone is the report.
      if (candidateFile === undefined && opts.baselineTarget === undefined && opts.target === undefined) {
        const report = overheadReport(
          { run: baseline, label: baselineFile },
          { confidence: opts.confidence, seed: opts.seed },
        );
        if (report.engineOverhead.length > 0) {
          process.stdout.write(renderCompare(report, outputFormat(opts)));
          return;
        }
      }
      if (candidateFile === undefined && (opts.baselineTarget === undefined || opts.target === undefined))
        throw new RbError(
          'USAGE_MISSING_TARGETS',
          `compare with one file needs --baseline-target and --target`,
          `targets in ${baselineFile}: ${baseline.targets.map((t) => t.id).join(', ') || 'none'} (a file with engine and CRI-level targets of one OCI runtime version shows its engine overhead alone)`,
        );
      if ((opts.baselineTarget === undefined) !== (opts.target === undefined))
        throw new RbError(
          'USAGE_MISSING_TARGETS',
          'give both --baseline-target and --target, or neither (then targets are paired by id)',
        );
      if (opts.baselineTarget !== undefined)
        requireTarget(baseline, baselineFile, opts.baselineTarget, '--baseline-target');
      if (opts.target !== undefined) requireTarget(candidate, candidateLabel, opts.target, '--target');
      const report = compareRuns(
        {
          run: baseline,
          label: baselineFile,
          ...(opts.baselineTarget ? { target: opts.baselineTarget } : {}),
        },
        { run: candidate, label: candidateLabel, ...(opts.target ? { target: opts.target } : {}) },
        { alpha: opts.alpha, confidence: opts.confidence, seed: opts.seed },
      );
      if (report.rows.length === 0 && report.engineOverhead.length === 0)
        throw new RbError(
          'COMPARE_NOTHING_IN_COMMON',
          `${baselineFile} and ${candidateLabel} have no benchmark × target in common`,
          'pair two targets explicitly with --baseline-target and --target',
        );
      process.stdout.write(renderCompare(report, outputFormat(opts)));
    });
}
