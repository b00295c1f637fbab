import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { RbError, errorMessage } from '../errors.ts';
import { sanitizeTerminal } from '../format/escape.ts';
import { writeResultFile } from '../results/io.ts';
import { DEFAULT_JOURNAL_DIR, parseJournal, recoverResult } from '../results/journal.ts';
import { runPathInDataDir } from '../results/layout.ts';
import { processAlive } from '../util/exec.ts';

interface RecoverOpts {
  journals: string;
  out?: string;
  dataDir?: string;
}

/** Is the journal's process a live runtime-bench (not a recycled pid)? */
async function stillRunning(pid: number): Promise<boolean> {
  if (!processAlive(pid)) return false;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.includes('runtime-bench');
}

export function registerRecover(program: Command): void {
  program
    .command('recover')
    .option('--journals <dir>', 'where runs keep their journals', DEFAULT_JOURNAL_DIR)
    .option('--out <file>', 'result file to write (one journal only)')
    .option('--data-dir <dir>', 'write each result into <dir>/runs/<yyyy>/<mm>/<dd>/<run-id>.json')
    .action(async (opts: RecoverOpts) => {
      if (!opts.out === !opts.dataDir)
        throw new RbError('USAGE_RUN_OUTPUT', 'recover needs exactly one of --out FILE or --data-dir DIR');
      const names = (await readdir(opts.journals).catch(() => [] as string[]))
        .filter((n) => n.endsWith('.journal.jsonl'))
        .sort();
      const journals = [];
      for (const name of names) {
        const path = join(opts.journals, name);
        const journal = parseJournal(await readFile(path, 'utf8'), path);
        if (await stillRunning(journal.header.pid)) {
          console.error(
            sanitizeTerminal(`${path}: its run is still going (pid ${journal.header.pid}); left alone`),
          );
          continue;
        }
        journals.push({ path, journal });
      }
      if (journals.length === 0) {
        console.log(`no journal of a killed run in ${opts.journals}`);
        return;
      }
      if (opts.out && journals.length > 1)
        throw new RbError(
          'USAGE_RUN_OUTPUT',
          `${journals.length} journals to recover, --out names one file`,
          'use --data-dir DIR',
        );
      for (const { path, journal } of journals) {
        const result = recoverResult(journal, new Date());
        const out = opts.out ?? runPathInDataDir(opts.dataDir!, result);
        // No room at --out: the whole result is kept beside the journals (or in the temp directory).
        await writeResultFile(out, result, { fallbackDirs: [opts.journals, tmpdir()] });
        // The journal goes only once its result is on disk.
        await rm(path).catch((error: unknown) => {
          console.error(`could not remove ${path}: ${errorMessage(error)}`);
        });
        console.log(
          sanitizeTerminal(
            `recovered ${result.runId}: ${journal.repetitions.length} repetition(s)${journal.tornLine ? ' (a last line cut short by the kill was dropped)' : ''} → ${out}`,
          ),
        );
      }
      console.log(
        'a killed run may have left its stacks up: `runtime-bench stack down --name <stack>` removes one',
      );
    });
}
