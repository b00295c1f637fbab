import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { effectiveRunStatus } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { parseConfig } from '../config/load.ts';
import { detectKind, type ValidatedKind } from '../config/detect.ts';
import { parseResult } from '../results/io.ts';

interface FileReport {
  file: string;
  kind: ValidatedKind | null;
  ok: boolean;
  runId?: string;
  status?: string;
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
    .argument('<files...>', 'result JSON files or run configs (YAML, told apart by extension and content)')
    .option('--json', 'print a machine-readable report')
    .action(async (files: string[], opts: { json?: boolean }) => {
      const report: FileReport[] = [];
      for (const file of files) report.push(await validateFile(file));
      if (opts.json) console.log(JSON.stringify(report, null, 2));
      else
        for (const r of report)
          console.log(
            r.ok
              ? `ok       ${r.file} (${r.kind === 'config' ? 'config' : `${r.runId}, ${r.status}`})`
              : `INVALID  ${r.error}`,
          );
      const bad = report.filter((r) => !r.ok);
      if (bad.length > 0) {
        const configs = bad.some((r) => r.kind === 'config');
        throw new RbError(
          configs ? 'CONFIG_INVALID' : 'RESULT_INVALID',
          `${bad.length} of ${files.length} file(s) invalid`,
          'each INVALID line names the file and the field; configs: see examples/quick.yaml and schemas/json/config.schema.json; result files are written by `runtime-bench run`, re-run it rather than editing one',
        );
      }
    });
}
