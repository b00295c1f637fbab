// `runtime-bench data side-by-side`: before tonight's run, which previous versions to measure
// beside the new ones (compare/side-by-side-plan.ts), read from the last nights the data branch
// holds for this host class and these targets.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { hostClassOf, type RunResult } from '@runtime-bench/schemas';
import { planSideBySide, type SideBySidePlan, type TrackedTarget } from '../compare/side-by-side-plan.ts';
import { VERSION_CHANGE_DEFAULTS } from '../compare/version-change.ts';
import { GATE_DEFAULTS } from '../compare/gate/options.ts';
import { fetchBranchHistory, readHistoryDir } from '../history/index.ts';
import { readHostFingerprint } from '../host/fingerprint.ts';
import { checkNames, gitForRemote, redactError, redactingLogger } from '../publish/context.ts';
import { DEFAULT_DATA_BRANCH } from '../results/layout.ts';
import { SPENDING_RULES, type SpendingRule } from '../stats/change-decision.ts';
import { parseCount, parseProbability } from './compare.ts';

interface SideBySideOptions {
  target: TrackedTarget[];
  gitDir: string;
  remote: string;
  branch: string;
  threshold: number;
  alpha: number;
  looks: number;
  spending: SpendingRule;
  json?: boolean;
}

/** commander parser of a repeated --target ID=VERSION. */
function collectTarget(value: string, previous: TrackedTarget[]): TrackedTarget[] {
  const match = /^([^=\s]+)=([^=\s]+)$/.exec(value);
  if (!match)
    throw new InvalidArgumentError(
      "expected TARGET-ID=VERSION, the target id of tonight's run and the version installed for it, e.g. containerd-latest/runc-latest=1.4.4",
    );
  return [...previous, { id: match[1]!, version: match[2]! }];
}

function parsePercent(value: string): number {
  const n = Number(value.replace(/\s*%$/, ''));
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('expected a percentage > 0, e.g. 5%');
  return n / 100;
}

/** Adds `side-by-side` to the `data` command (not a top-level command: no register* name). */
export function addDataSideBySide(data: Command): void {
  data
    .command('side-by-side')
    .description(
      'before a run: which previous versions to measure beside the new ones (a tracked runtime that moved since its last night, or a pair still unclear), from the data branch',
    )
    .requiredOption(
      '--target <id=version>',
      "a target of tonight's run and its installed version (repeatable)",
      collectTarget,
      [] as TrackedTarget[],
    )
    .option('--git-dir <dir>', 'a clone whose remote holds the data branch', '.')
    .option('--remote <name>', 'remote name or URL of the data branch', 'origin')
    .option('--branch <name>', 'the data branch', DEFAULT_DATA_BRANCH)
    .addOption(
      new Option('--threshold <percent>', 'smallest change that matters, as check --threshold')
        .argParser(parsePercent)
        .default(GATE_DEFAULTS.threshold, `${GATE_DEFAULTS.threshold * 100}%`),
    )
    .option('--alpha <p>', "error rate of a pair's decision", parseProbability, VERSION_CHANGE_DEFAULTS.alpha)
    .option('--looks <nights>', 'nights a pair may be measured on', parseCount, VERSION_CHANGE_DEFAULTS.looks)
    .addOption(
      new Option('--spending <rule>', 'how the error rate is spent over the nights')
        .choices([...SPENDING_RULES])
        .default(VERSION_CHANGE_DEFAULTS.spending),
    )
    .option('--json', 'print the plan as JSON')
    .action(async (opts: SideBySideOptions) => {
      const plan = await planFromBranch(opts);
      if (opts.json) console.log(JSON.stringify(plan, null, 2));
      else {
        for (const p of plan.pairs)
          console.log(`${p.target}: measure ${p.name}@${p.from} beside ${p.to} (night ${p.look}: ${p.why})`);
        for (const n of plan.notes) console.log(n);
      }
    });
}

async function planFromBranch(opts: SideBySideOptions): Promise<SideBySidePlan> {
  await checkNames(process.env, opts.remote, opts.branch);
  const hostClass = hostClassOf(await readHostFingerprint([]));
  const ids = new Set(opts.target.map((t) => t.id));
  const { git, secrets } = await gitForRemote(process.env, opts.gitDir, opts.remote);
  const log = redactingLogger((line) => console.error(line), secrets);
  const out = await mkdtemp(join(tmpdir(), 'rb-side-by-side-'));
  try {
    const named = await git.run(['remote', 'get-url', opts.remote], { cwd: opts.gitDir }).catch(() => null);
    const url = named?.exitCode === 0 ? named.stdout.trim() : opts.remote;
    await fetchBranchHistory(
      git,
      {
        url,
        branch: opts.branch,
        current: {
          before: null,
          accepts: (run: RunResult) =>
            hostClassOf(run.host) === hostClass && run.targets.some((t) => ids.has(t.id)),
        },
        // The last nights of each pair at most: a night per look.
        runs: opts.looks,
        out,
      },
      log,
    );
    const nights = (await readHistoryDir(out)).entries.map((e) => e.run);
    return planSideBySide(opts.target, nights, {
      alpha: opts.alpha,
      looks: opts.looks,
      spending: opts.spending,
      threshold: opts.threshold,
      thresholds: {},
    });
  } catch (error) {
    throw redactError(error, secrets);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
