import { fileURLToPath } from 'node:url';
import { type Command, InvalidArgumentError } from 'commander';
import { TOKEN_ENV_VARS } from '../publish/auth.ts';
import { checkNames, gitForRemote, loadDocFiles, redactError, redactingLogger } from '../publish/context.ts';
import { deprecatedAlias } from './vocabulary.ts';
import { DEFAULT_DATA_BRANCH } from '../results/layout.ts';
import { refuseModifiedCheckouts } from '../publish/provenance.ts';
import { DEFAULT_MAX_ATTEMPTS, publishResults, readInputs } from '../publish/publish.ts';

/** The workspace root (…/runner/src/commands → …), where data/README.md and schemas/json live. */
const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface PublishCommandOptions {
  gitDir: string;
  remote: string;
  branch: string;
  message?: string;
  maxAttempts: number;
  json?: boolean;
  allowDirty?: boolean;
}

export function registerPublish(program: Command): void {
  const command = program
    .command('publish')
    .argument(
      '<files...>',
      'result JSON files and bisection reports (bisect --out, or bisections/ of its --data-dir)',
    )
    .option(
      '--git-dir <dir>',
      'a clone of the repository that owns the data branch (its checkout and index are left alone)',
      '.',
    )
    .option('--remote <name>', 'remote name or URL to publish to', 'origin')
    .option(
      '--branch <name>',
      'the data branch (created as an orphan branch when missing)',
      DEFAULT_DATA_BRANCH,
    )
    .option('--message <text>', 'commit message (default: the list of added runs)')
    .option(
      '--max-attempts <n>',
      'push attempts before giving up on a busy branch',
      positiveInt,
      DEFAULT_MAX_ATTEMPTS,
    )
    .option('--json', 'print a machine-readable report')
    .option(
      '--allow-dirty',
      'publish results measured from a runtime-bench checkout with uncommitted changes (their tool.gitCommit ends in "+dirty"; the site marks them)',
    )
    .addHelpText(
      'after',
      `\nIn CI the token is read from ${TOKEN_ENV_VARS.join(' or ')} and handed to git through the\n` +
        'environment (http.<origin>.extraheader), never through arguments, URLs or .git/config.',
    )
    .action(async (files: string[], opts: PublishCommandOptions) => {
      // Validation first: an invalid file stops everything before git is even started.
      const inputs = await readInputs(files);
      refuseModifiedCheckouts(inputs, opts.allowDirty ?? false);
      await checkNames(process.env, opts.remote, opts.branch);
      // Secrets are read here rather than in cli.ts because they must never pass through argv.
      const { git, secrets, tokenSource } = await gitForRemote(process.env, opts.gitDir, opts.remote);
      const log = redactingLogger((line) => console.error(line), secrets);
      // stdout names the remote too (a URL may carry user:token@): masked like stderr.
      const out = redactingLogger((line) => console.log(line), secrets);
      if (tokenSource) log(`authenticating to HTTP(S) remotes with the token from ${tokenSource}`);
      try {
        const docs = await loadDocFiles(WORKSPACE_ROOT);
        const report = await publishResults(
          inputs,
          {
            repo: opts.gitDir,
            remote: opts.remote,
            branch: opts.branch,
            message: opts.message,
            maxAttempts: opts.maxAttempts,
            docs,
          },
          { git, log, sleep: (ms) => new Promise((r) => setTimeout(r, ms)), random: Math.random },
        );
        if (opts.json) {
          out(
            JSON.stringify(
              {
                outcome: report.outcome,
                branch: report.branch,
                commit: report.commit,
                attempts: report.attempts,
                added: report.added.map((c) => ({ runId: c.runId, path: c.path, sources: c.sources })),
                unchanged: report.unchanged.map((c) => ({
                  runId: c.runId,
                  path: c.path,
                  sources: c.sources,
                })),
                docs: report.docs.map((d) => ({ path: d.path, action: d.action })),
              },
              null,
              2,
            ),
          );
          return;
        }
        for (const c of report.added) out(`added      ${c.path}  (${c.sources.join(', ')})`);
        for (const c of report.unchanged) out(`unchanged  ${c.path}  (already published)`);
        for (const d of report.docs) out(`${d.action === 'add' ? 'added   ' : 'updated '}   ${d.path}`);
        out(
          report.outcome === 'published'
            ? `published ${report.added.length} run(s) to ${opts.remote}/${report.branch} as ${report.commit?.slice(0, 12)} (attempt ${report.attempts})`
            : `nothing to publish: ${report.unchanged.length} run(s) already on ${opts.remote}/${report.branch}`,
        );
      } catch (error) {
        throw redactError(error, secrets);
      }
    });
  deprecatedAlias(command, '--repo <dir>', '--git-dir');
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
