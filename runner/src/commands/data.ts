import type { Command } from 'commander';
import { DEFAULT_HISTORY_RUNS, fetchBranchHistory } from '../history/index.ts';
import { RbError } from '../errors.ts';
import { readResultFile } from '../results/io.ts';
import { parseCount } from './compare.ts';
import { checkNames, gitForRemote, redactError, redactingLogger } from '../publish/context.ts';
import { deprecatedAlias } from './vocabulary.ts';
import { addDataSideBySide } from './data-side-by-side.ts';
import { DEFAULT_DATA_BRANCH } from '../results/layout.ts';
import { checkRepository, fetchBranchTip, withTemporaryWorktree } from '../publish/repo.ts';
import {
  readCommitEntries,
  readDirEntries,
  resolveLocalBranch,
  verifyEntries,
  type VerifyReport,
} from '../publish/verify.ts';

interface VerifyOptions {
  dir?: string;
  gitDir: string;
  branch: string;
  remote?: string;
  json?: boolean;
}

interface HistoryOptions {
  current: string;
  out: string;
  gitDir: string;
  remote: string;
  branch: string;
  runs: number;
}

export function registerData(program: Command): void {
  const data = program.command('data');
  const historyCommand = data
    .command('history')
    .description(
      "fetch the gate's history of a result from the data branch (read-only, shallow: only the files needed) into a directory for check --history",
    )
    .requiredOption('--current <file>', 'the result whose history is wanted (its host class and targets)')
    .requiredOption('--out <dir>', 'directory to write the history to (laid out as data/runs)')
    .option('--git-dir <dir>', 'a clone whose remote holds the data branch', '.')
    .option('--remote <name>', 'remote name or URL of the data branch', 'origin')
    .option('--branch <name>', 'the data branch', DEFAULT_DATA_BRANCH)
    .option(
      '--runs <n>',
      "comparable runs to fetch at most (the gate's window and the previous night's)",
      parseCount,
      DEFAULT_HISTORY_RUNS,
    )
    .action(async (opts: HistoryOptions) => {
      const current = await readResultFile(opts.current);
      await checkNames(process.env, opts.remote, opts.branch);
      const { git, secrets } = await gitForRemote(process.env, opts.gitDir, opts.remote);
      const log = redactingLogger((line) => console.error(line), secrets);
      const out = redactingLogger((line) => console.log(line), secrets);
      try {
        // A configured remote is fetched by its URL: the scratch repository knows no remotes.
        const named = await git
          .run(['remote', 'get-url', opts.remote], { cwd: opts.gitDir })
          .catch(() => null);
        const url = named?.exitCode === 0 ? named.stdout.trim() : opts.remote;
        const history = await fetchBranchHistory(
          git,
          { url, branch: opts.branch, current, runs: opts.runs, out: opts.out },
          log,
        );
        const where = `${opts.remote}/${opts.branch}`;
        if (history.commit === null) out(`no history yet: ${where} does not exist (the first night)`);
        else if (history.files.length === 0)
          out(
            `no history yet: ${where} (${history.commit.slice(0, 12)}) holds no earlier run of this host class and targets`,
          );
        else
          out(
            `${history.files.length} earlier run(s) of this host class and targets from ${where} (${history.commit.slice(0, 12)}) in ${opts.out}` +
              (history.annotations ? `, with ${history.annotations}` : ''),
          );
      } catch (error) {
        throw redactError(error, secrets);
      }
    });
  deprecatedAlias(historyCommand, '--repo <dir>', '--git-dir');
  addDataSideBySide(data);
  const verifyCommand = data
    .command('verify')
    .description('validate every result file of the data branch (or of a data directory) and count the runs')
    .option('--dir <dir>', 'verify a data directory laid out like the branch (e.g. data), not a branch')
    .option('--git-dir <dir>', 'the clone holding the data branch', '.')
    .option('--branch <name>', 'the data branch', DEFAULT_DATA_BRANCH)
    .option('--remote <name>', "fetch and verify the remote's branch instead of the local copy")
    .option('--json', 'print a machine-readable report')
    .action(async (opts: VerifyOptions, command: Command) => {
      const report = await verify(opts, command);
      if (opts.json) console.log(JSON.stringify(report, null, 2));
      else {
        for (const p of report.problems) console.log(`INVALID  ${p.message}`);
        console.log(
          `${report.source}: ${report.files} file(s), ${report.valid} valid, ${report.invalid} invalid; ` +
            `runs: ${report.runs.complete} complete, ${report.runs.partial} partial, ${report.runs.incomplete} incomplete`,
        );
      }
      if (report.invalid > 0) {
        throw new RbError(
          'DATA_INVALID',
          `${report.invalid} of ${report.files} file(s) in ${report.source} are invalid`,
          'published files are never rewritten by runtime-bench: repair them by hand in a reviewed commit',
        );
      }
    });
  deprecatedAlias(verifyCommand, '--repo <dir>', '--git-dir');
}

async function verify(opts: VerifyOptions, command: Command): Promise<VerifyReport> {
  if (opts.dir !== undefined) {
    const branchGiven = command.getOptionValueSource('branch') === 'cli';
    const repoGiven = command.getOptionValueSource('gitDir') === 'cli';
    if (opts.remote !== undefined || branchGiven || repoGiven) {
      throw new RbError(
        'USAGE_DATA_VERIFY',
        '--dir verifies a directory; it cannot be combined with --git-dir, --branch or --remote',
      );
    }
    const { entries, problems } = await readDirEntries(opts.dir);
    return verifyEntries(entries, opts.dir, problems);
  }
  await checkNames(process.env, opts.remote, opts.branch);
  const remote = opts.remote;
  const { git, secrets } = await gitForRemote(process.env, opts.gitDir, remote ?? 'origin');
  try {
    await checkRepository(git, opts.gitDir);
    if (remote === undefined) {
      const { ref, commit } = await resolveLocalBranch(git, opts.gitDir, opts.branch);
      return verifyEntries(
        await readCommitEntries(git, opts.gitDir, commit),
        `${ref} (${commit.slice(0, 12)})`,
      );
    }
    const log = redactingLogger((line) => console.error(line), secrets);
    return await withTemporaryWorktree(
      git,
      opts.gitDir,
      async (worktree) => {
        const tip = await fetchBranchTip(git, worktree, remote, opts.branch);
        if (tip === null) {
          throw new RbError(
            'DATA_NO_BRANCH',
            `${remote} has no branch ${opts.branch}`,
            'publish a result first',
          );
        }
        return verifyEntries(
          await readCommitEntries(git, worktree, tip),
          `${remote}/${opts.branch} (${tip.slice(0, 12)})`,
        );
      },
      log,
    );
  } catch (error) {
    throw redactError(error, secrets);
  }
}
