import type { Command } from 'commander';
import { RbError, errorMessage } from '../errors.ts';
import { readResultFile } from '../results/io.ts';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .argument('<files...>', 'result JSON files')
    .option('--json', 'print a machine-readable report')
    .action(async (files: string[], opts: { json?: boolean }) => {
      const report: { file: string; ok: boolean; runId?: string; status?: string; error?: string }[] = [];
      for (const file of files) {
        try {
          const result = await readResultFile(file);
          report.push({ file, ok: true, runId: result.runId, status: result.status });
        } catch (error) {
          report.push({ file, ok: false, error: errorMessage(error) });
        }
      }
      if (opts.json) console.log(JSON.stringify(report, null, 2));
      else
        for (const r of report)
          console.log(r.ok ? `ok       ${r.file} (${r.runId}, ${r.status})` : `INVALID  ${r.error}`);
      const bad = report.filter((r) => !r.ok).length;
      if (bad > 0)
        throw new RbError(
          'RESULT_INVALID',
          `${bad} of ${files.length} file(s) invalid`,
          'each INVALID line names the file and the field; result files are written by `runtime-bench run`, re-run it rather than editing one',
        );
    });
}
