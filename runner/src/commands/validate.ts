import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { effectiveRunStatus } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { parseConfig } from '../config/load.ts';
import { detectKind, type ValidatedKind } from '../config/detect.ts';
import { parseResult } from '../results/io.ts';
import { parseBisectionReport } from '../results/bisection-io.ts';
import { bisectionId } from '../results/bisection-path.ts';

interface FileReport {
  file: string;
  kind: ValidatedKind | null;
  ok: boolean;
  runId?: string;
  status?: string;
  /** A bisection report's id (its file name in a data directory) and outcome. */
  bisectionId?: string;
  outcome?: string;
  error?: string;
}

/** Validates one file as the config or result it is; never throws (the report says what failed). */
async function validateFile(file: string): Promise<FileReport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { file, kind: null, ok: false, error: `${file}: cannot read (${errorMessage(error)})` };
  }
  const kind = detectKind(file, text);
  try {
    if (kind === 'config') {
      parseConfig(text, file);
      return { file, kind, ok: true };
    }
    if (kind === 'bisection') {
      const report = parseBisectionReport(text, file);
      return { file, kind, ok: true, bisectionId: bisectionId(report), outcome: report.outcome };
    }
    const result = parseResult(text, file);
    // As every reader states it: an older file's "complete" run that measured nothing somewhere is partial.
    return { file, kind, ok: true, runId: result.runId, status: effectiveRunStatus(result) };
  } catch (error) {
    return { file, kind, ok: false, error: errorMessage(error) };
  }
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .argument(
      '<files...>',
      'result JSON files, bisection reports or run configs (YAML), told apart by extension and content',
    )
    .option('--json', 'print a machine-readable report')
    .action(async (files: string[], opts: { json?: boolean }) => {
      const report: FileReport[] = [];
      for (const file of files) report.push(await validateFile(file));
      if (opts.json) console.log(JSON.stringify(report, null, 2));
      else
        for (const r of report)
          console.log(
            r.ok
              ? `ok       ${r.file} (${r.kind === 'config' ? 'config' : r.kind === 'bisection' ? `bisection ${r.bisectionId}, ${r.outcome}` : `${r.runId}, ${r.status}`})`
              : `INVALID  ${r.error}`,
          );
      const bad = report.filter((r) => !r.ok);
      if (bad.length > 0) {
        const configs = bad.some((r) => r.kind === 'config');
        const bisections = bad.every((r) => r.kind === 'bisection');
        throw new RbError(
          configs ? 'CONFIG_INVALID' : bisections ? 'BISECTION_INVALID' : 'RESULT_INVALID',
          `${bad.length} of ${files.length} file(s) invalid`,
          'each INVALID line names the file and the field; configs: see examples/quick.yaml and schemas/json/config.schema.json; result files are written by `runtime-bench run` and bisection reports by `runtime-bench bisect`: re-run them rather than editing one',
        );
      }
    });
}
