import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import {
  BISECT_REPORT_SCHEMA_VERSION,
  BisectReportV3Schema,
  type BisectCandidate,
  type BisectReportV3,
  type Config,
} from '@runtime-bench/schemas';
import { BISECT_DEFAULTS, bisect, BisectStopped, type BisectWalk } from '../bisect/bisect.ts';
import { createBuilder, createRepo } from '../bisect/build-candidate.ts';
import { originClonePath, originUrl, updatedClone } from '../bisect/origin-clone.ts';
import { namedCandidates, releaseParts, releasesBetween } from '../bisect/candidates.ts';
import { bisectJson, bisectMarkdown, bisectTable } from '../bisect/format.ts';
import {
  alphaFlag,
  candidatesFlag,
  continueCommand,
  directionFlag,
  nonNegativeInt,
  parseBudget,
  positiveInt,
} from '../bisect/options.ts';
import { stackMeasurer } from '../bisect/stack-measure.ts';
import { loadConfig } from '../config/load.ts';
import { DEFAULT_PREFIX } from '../install/plan.ts';
import { deprecatedAlias } from './vocabulary.ts';
import { RbError } from '../errors.ts';
import { sanitizeTerminal } from '../format/escape.ts';
import { readHostFingerprint } from '../host/fingerprint.ts';
import { bisectionPathInDataDir } from '../results/layout.ts';
import { BENCHMARKS, unknownBenchmarkHint } from '../suites/registry.ts';
import { withRunSession } from '../session/session.ts';
import { toolRecord } from '../version.ts';
import { BISECTABLE } from '../bisect-request.ts';

interface BisectOpts {
  component: string;
  good: string;
  bad: string;
  benchmark: string;
  metric: string;
  direction: string;
  budget?: string;
  gitDir?: string;
  cloneOrigin?: boolean;
  candidates?: string;
  stack: string;
  config?: string;
  alpha: string;
  roundsPerLook: string;
  looks: string;
  warmup: string;
  prefix: string;
  dataDir?: string;
  out?: string;
  markdown?: string;
  json?: boolean;
  fixHost?: boolean;
}

function metricOf(benchmark: string, metric: string): { direction: 'lower' | 'higher' } {
  const b = BENCHMARKS.find((x) => x.definition.name === benchmark);
  if (!b)
    throw new RbError(
      'USAGE_BISECT_BENCHMARK',
      `--benchmark ${benchmark} is not a benchmark`,
      unknownBenchmarkHint(
        benchmark,
        BENCHMARKS.map((x) => x.definition.name),
        'give a full name, e.g. operations.container.lifecycle',
      ),
    );
  const m = b.definition.metrics.find((x) => x.name === metric);
  if (!m)
    throw new RbError(
      'USAGE_BISECT_METRIC',
      `--metric ${metric} is not a metric of ${benchmark}`,
      `one of: ${b.definition.metrics.map((x) => x.name).join(', ')}`,
    );
  return { direction: m.direction };
}

export function registerBisect(program: Command): void {
  const command = program
    .command('bisect')
    .requiredOption('--component <name>', `the OCI runtime to bisect (${BISECTABLE.join(', ')})`)
    .requiredOption('--good <version>', 'a release without the change (with --git-dir: or a commit)')
    .requiredOption('--bad <version>', 'a release with it (with --git-dir: or a commit after --good)')
    .requiredOption('--benchmark <name>', 'e.g. operations.container.lifecycle')
    .requiredOption('--metric <name>', 'e.g. StartContainer')
    .option('--direction <dir>', 'slower (a regression) or faster', 'slower')
    .option('--budget <duration>', 'stop after this long with the range narrowed so far, e.g. 30m')
    .option(
      '--git-dir <dir>',
      "the component's git clone: releases are its tags, then its commits are bisected",
    )
    .option(
      '--clone-origin',
      "without --git-dir: clone the repository the Go module proxy names as --bad's origin (kept under --prefix) and bisect its commits too",
    )
    .option('--candidates <refs>', 'comma-separated commits or pseudo-versions to bisect instead of releases')
    .option('--stack <name>', 'the private stack the candidates run on', 'bisect')
    .option('--config <file>', 'a config whose parameters and images the runs use')
    .option('--alpha <rate>', 'error rate of one step', String(BISECT_DEFAULTS.alpha))
    .option(
      '--rounds-per-look <n>',
      'rounds (good, candidate, bad) per look of a step',
      String(BISECT_DEFAULTS.roundsPerLook),
    )
    .option('--looks <n>', 'looks before a step is unclear', String(BISECT_DEFAULTS.maxLooks))
    .option('--warmup <n>', 'unrecorded rounds before each look', '1')
    .option(
      '--prefix <dir>',
      'where builds are kept (the install prefix: a cache across bisections and installs)',
      DEFAULT_PREFIX,
    )
    .option(
      '--data-dir <dir>',
      "where every look's run result is written (default: beside --out, else a new directory in /var/lib/runtime-bench/bisect)",
    )
    .option('--out <file>', 'write the report as JSON')
    .option('--markdown <file>', 'write the report as Markdown (e.g. $GITHUB_STEP_SUMMARY)')
    .option('--json', 'print the report as JSON instead of the table')
    .option('--fix-host', 'apply host fixes that change the host (as stack up --fix-host)')
    .action(async (opts: BisectOpts) => {
      if (!(BISECTABLE as readonly string[]).includes(opts.component))
        throw new RbError(
          'USAGE_BISECT_COMPONENT',
          `--component ${opts.component} cannot be bisected`,
          `one of: ${BISECTABLE.join(', ')}`,
        );
      const component = opts.component as (typeof BISECTABLE)[number];
      const direction = directionFlag(opts.direction);
      const { direction: metricDirection } = metricOf(opts.benchmark, opts.metric);
      const budgetMinutes = opts.budget === undefined ? null : parseBudget(opts.budget);
      const alpha = alphaFlag(opts.alpha);
      const roundsPerLook = positiveInt('--rounds-per-look', opts.roundsPerLook);
      const maxLooks = positiveInt('--looks', opts.looks);
      const warmup = nonNegativeInt('--warmup', opts.warmup);
      const named = opts.candidates === undefined ? undefined : candidatesFlag(opts.candidates);
      const base: Config | undefined = opts.config ? await loadConfig(opts.config) : undefined;
      // The commits come from the user's clone, or from the origin the module proxy names.
      const gitDir =
        opts.gitDir ??
        (opts.cloneOrigin
          ? await updatedClone(
              await originUrl(component, opts.bad),
              originClonePath(opts.prefix, component),
              progress,
            )
          : undefined);
      const repo = gitDir ? await createRepo(gitDir) : null;
      const builder = createBuilder({ component, repo, prefix: opts.prefix, log: progress });
      // Commit ends (a clone's hashes or refs) bisect the commits between them, as git bisect
      // does: how a bisection stopped by its budget goes on from the range it narrowed.
      const commitEnds =
        repo !== null && (releaseParts(opts.good) === null || releaseParts(opts.bad) === null);
      const ends = (): BisectCandidate[] => releasesBetween([opts.good, opts.bad], opts.good, opts.bad);
      const candidates = commitEnds
        ? await repo.commitEnds(opts.good, opts.bad)
        : named
          ? [...ends().slice(0, 1), ...namedCandidates(named), ...ends().slice(-1)]
          : releasesBetween(
              repo
                ? await repo.releases()
                : // The module proxy's list may lack releases it serves (runc 1.2.0): the ends are
                  // built as named (a build says if one does not exist), the list gives those between.
                  [...(await builder.releases()), opts.good, opts.bad],
              opts.good,
              opts.bad,
            );
      const startedAt = new Date();
      // What the report was made with, down to the commit (read once: it spawns git).
      const tool = toolRecord();
      const dataDir =
        opts.dataDir ??
        (opts.out
          ? join(`${opts.out}.runs`)
          : join('/var/lib/runtime-bench/bisect', startedAt.toISOString().replace(/[:.]/g, '')));
      await mkdir(dataDir, { recursive: true });
      await withRunSession({ log: progress, say: progress }, async (session) => {
        const measure = stackMeasurer(session, {
          stack: opts.stack,
          kind: component,
          benchmark: opts.benchmark,
          metric: opts.metric,
          warmup,
          dataDir,
          fixHost: Boolean(opts.fixHost),
          ...(base ? { base } : {}),
          log: progress,
        });
        let walk: BisectWalk;
        let stopped: BisectStopped | null = null;
        try {
          walk = await bisect(
            {
              component,
              benchmark: opts.benchmark,
              metric: opts.metric,
              direction,
              metricDirection,
              candidates,
              alpha,
              roundsPerLook,
              maxLooks,
              maxAttempts: BISECT_DEFAULTS.maxAttempts,
              budgetMinutes,
            },
            {
              build: builder.build,
              measure,
              ...(repo
                ? {
                    commitsBetween: repo.commitsBetween,
                    mergeSide: repo.mergeSide,
                    releaseCommit: repo.releaseCommit,
                    treeOf: repo.treeOf,
                  }
                : {}),
              now: () => Date.now(),
              log: progress,
            },
          );
        } catch (error) {
          // Stopped part way (a signal, a failed build or run): the steps so far are still reported.
          if (!(error instanceof BisectStopped)) throw error;
          stopped = error;
          walk = error.walk;
        }
        // Written before the session takes the stack down: what the steps found is kept even if
        // that fails.
        const report: BisectReportV3 = BisectReportV3Schema.parse({
          schemaVersion: BISECT_REPORT_SCHEMA_VERSION,
          startedAt: startedAt.toISOString(),
          finishedAt: new Date().toISOString(),
          tool: { name: tool.name, version: tool.version, gitCommit: tool.gitCommit },
          host: await readHostFingerprint([]),
          ...walk,
        });
        if (opts.out) await writeFile(opts.out, bisectJson(report));
        // Beside the looks' runs, where a site built from that data directory finds it.
        const kept = bisectionPathInDataDir(dataDir, report);
        await mkdir(dirname(kept), { recursive: true });
        await writeFile(kept, bisectJson(report));
        if (opts.markdown) await writeFile(opts.markdown, bisectMarkdown(report), { flag: 'a' });
        if (opts.json) process.stdout.write(bisectJson(report));
        else console.log(sanitizeTerminal(bisectTable(report), { multiline: true }));
        progress(`the report is also ${kept}; every look's run result is in ${dataDir}`);
        if (stopped) throw stopped.cause;
        if (report.outcome !== 'found')
          throw new RbError(
            'BISECT_NOT_FOUND',
            report.message,
            report.outcome === 'budget-exhausted'
              ? `bisect the range left: ${continueCommand(report, gitDir) ?? 'give a larger --budget'}`
              : undefined,
          );
      });
    });
  deprecatedAlias(command, '--repo <dir>', '--git-dir');
}

function progress(line: string): void {
  process.stderr.write(`bisect: ${sanitizeTerminal(line, { multiline: true })}\n`);
}
