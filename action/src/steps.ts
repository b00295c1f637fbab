// The action's steps. Each runs the same `runtime-bench` commands a user would, as child
// processes, and passes state to the next step through files in one work directory.
import { spawn, type ChildProcess } from 'node:child_process';
import * as core from '@actions/core';
import { chmod, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { EXIT, RbError, errorMessage, readResultFile, type BisectRequest } from '@runtime-bench/runner';
import type { RunResult } from '@runtime-bench/schemas';
import { addStackToRecord, readInstallRecord } from '@runtime-bench/runner/install';
import { bisectRequests } from '@runtime-bench/runner/compare';
import { bisectRequestsKept, bisectStackName, keepBisectRequests, stepBisect } from './bisect.ts';
import { clearRegressions, stepAlert, writeRegressions } from './alert-step.ts';
import { buildClusterConfig, checkKubeconfig, clusterMode } from './cluster.ts';
import { gateHistory, stepHistory as fetchHistory } from './history.ts';
import { installSpecs, stackUpArgs } from './cri.ts';
import type { StepContext } from './step-context.ts';
import { installSource, thresholdPercent } from './inputs.ts';
import { checkLines, mergeCheckLines, type CheckLines, type CheckReport } from './regressions.ts';
import { pinnedSpecs, referenceTargetIds } from './reference.ts';
import { buildRunConfig } from './run-config.ts';
import { paths } from './work-dir.ts';
import { readSideBySide, stepSideBySide } from './side-by-side.ts';
import { buildSweepBaseConfig, sweepArgs, sweepMode } from './sweep.ts';
import { annotationsFor, summaryMarkdown, writeSummary } from './summary.ts';
import { parseTimings, timingsFile } from './timings.ts';

export const RUNTIME_BENCH = new URL('../../runner/bin/runtime-bench.js', import.meta.url).pathname;

export { paths } from './work-dir.ts';

/**
 * The result files of the run step, sorted: result.json, or result.<node>.json per node when a
 * kubernetes target spans several nodes (`run --out` names them so).
 */
export function resultFileNames(names: readonly string[]): string[] {
  return names.filter((n) => /^result(\.[^/]+)?\.json$/.test(n)).sort();
}

async function resultFiles(workDir: string): Promise<string[]> {
  return resultFileNames(await readdir(workDir).catch(() => [] as string[])).map((n) => join(workDir, n));
}

/** Spawns our CLI with inherited output (so the runner's log shows it as it happens), or captured stdout. */
export function spawnRuntimeBench(
  args: string[],
  env: Record<string, string> = {},
  capture = false,
  okExitCodes: readonly number[] = [0],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNTIME_BENCH, ...args], {
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
      // The secret inputs stay with the action: the CLI reads the kubeconfig from the 0600 file it
      // was written to, and gets the token only as RB_PUBLISH_TOKEN from the publish step.
      env: { ...withoutSecretInputs(process.env), ...env },
    });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const release = forwardSignals(process, child);
    child.on('error', (error) => (release(), reject(error)));
    child.on('exit', (code, signal) => {
      release();
      if (code !== null && okExitCodes.includes(code)) resolve(stdout);
      else
        reject(new RbError('ACTION_STEP', `runtime-bench ${args[0]} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

/** The signals a runner sends a step it cancels (SIGINT, then SIGTERM after a grace period). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * While `child` runs, a SIGINT or SIGTERM of this step is passed on to it instead of ending the
 * step at once: the CLI then stops after its current call and writes its partial (`incomplete`)
 * result, and only when it has exited does the step end — so the run step's outputs name the
 * result and the summary and publish steps find it. Returns the function that stops forwarding.
 */
export function forwardSignals(
  source: Pick<NodeJS.EventEmitter, 'on' | 'off'>,
  child: Pick<ChildProcess, 'kill'>,
): () => void {
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  for (const signal of STOP_SIGNALS) source.on(signal, forward);
  return () => {
    for (const signal of STOP_SIGNALS) source.off(signal, forward);
  };
}

/** The inputs that are credentials, under either of the runner's names (inputs.ts `inputEnvNames`). */
const SECRET_INPUT = /^INPUT_(KUBECONFIG|TOKEN|GITHUB[-_]TOKEN)$/i;

export function withoutSecretInputs(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of Object.keys(copy)) if (SECRET_INPUT.test(name)) delete copy[name];
  return copy;
}

export async function stepInstall(ctx: StepContext): Promise<void> {
  const { inputs } = ctx;
  // A moving reference would be no reference: refused before anything is installed or measured.
  pinnedSpecs(inputs['reference-handler']);
  await mkdir(ctx.workDir, { recursive: true });
  if (clusterMode(inputs)) {
    console.log('cluster mode (kubeconfig given): nothing to install, no local stack');
    return;
  }
  if (sweepMode(inputs)) {
    console.log(`sweep ${inputs.sweep}: the Benchmark step installs or builds each version`);
    return;
  }
  await ctx.runtimeBench([
    'install',
    '--source',
    installSource(inputs),
    '--prefix',
    inputs.prefix,
    '--state',
    paths(ctx.workDir).record,
    ...installSpecs(inputs),
  ]);
}

async function readUserConfig(ctx: StepContext): Promise<unknown> {
  if (!ctx.inputs.config) return null;
  try {
    return parse(await readFile(join(ctx.workspace, ctx.inputs.config), 'utf8'));
  } catch (error) {
    throw new RbError(
      'CONFIG_INVALID',
      `${ctx.inputs.config}: ${errorMessage(error)}`,
      'config is a path relative to the workspace',
    );
  }
}

/** Cluster mode's `up`: the kubeconfig checked and written 0600, and the run config beside it. */
async function prepareCluster(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  checkKubeconfig(ctx.inputs.kubeconfig);
  const config = buildClusterConfig(await readUserConfig(ctx), ctx.inputs, p.kubeconfig);
  await mkdir(ctx.workDir, { recursive: true });
  // Created afresh so that the mode applies (it does only on creation), then made sure of.
  await rm(p.kubeconfig, { force: true });
  await writeFile(p.kubeconfig, ctx.inputs.kubeconfig, { mode: 0o600, flag: 'wx' });
  await chmod(p.kubeconfig, 0o600);
  await writeFile(p.config, `# Written by the runtime-bench action (cluster mode).\n${stringify(config)}`);
  const t = config.targets[0]!;
  console.log(
    `cluster mode: RuntimeClasses ${t.kind === 'kubernetes' ? t.runtimeClasses.map((c) => c.name).join(', ') : '?'}; benchmarks ${config.benchmarks.join(', ')}`,
  );
}

export async function stepUp(ctx: StepContext): Promise<void> {
  if (clusterMode(ctx.inputs)) return prepareCluster(ctx);
  const p = paths(ctx.workDir);
  if (sweepMode(ctx.inputs)) {
    // The sweep starts its own stacks: only the benchmarks, repetitions and parameters are written.
    const config = buildSweepBaseConfig(await readUserConfig(ctx), ctx.inputs);
    await writeFile(p.config, `# Written by the runtime-bench action (sweep).\n${stringify(config)}`);
    return;
  }
  const record = await readInstallRecord(p.record);
  const beside = await readSideBySide(ctx.workDir);
  const config = buildRunConfig(await readUserConfig(ctx), ctx.inputs, record, beside);
  await writeFile(p.config, `# Written by the runtime-bench action.\n${stringify(config)}`);
  const args = stackUpArgs(ctx.inputs, record, p.config);
  // Noted before starting, so that cleanup stops even a half-started stack.
  await addStackToRecord(p.record, { name: ctx.inputs['stack-name'] });
  await ctx.runtimeBench(args);
}

export async function stepRun(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  // A result file of an earlier run in the same work directory must not pass for this one's.
  for (const f of await resultFiles(ctx.workDir)) await rm(f, { force: true });
  try {
    await ctx.runtimeBench(
      sweepMode(ctx.inputs)
        ? sweepArgs(ctx.inputs, { config: p.config, out: p.result, state: p.record })
        : ['run', '--config', p.config, '--out', p.result],
      {},
      false,
      // A failed benchmark still wrote the result: the summary step reports it and fails the job.
      [0, EXIT.benchmarkFailed.code],
    );
  } finally {
    // The cluster run was the only reader of the kubeconfig; interrupted runs write results too.
    await rm(p.kubeconfig, { force: true });
    const files = await resultFiles(ctx.workDir);
    if (files.length > 0) {
      ctx.setOutput('result-path', files[0]!);
      ctx.setOutput('result-paths', files.join('\n'));
    }
  }
}

export async function stepSummary(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  await clearRegressions(ctx.workDir);
  const files = await resultFiles(ctx.workDir);
  if (files.length === 0)
    throw new RbError(
      'RUN_FAILED',
      `no result file in ${ctx.workDir}`,
      'the Benchmark step wrote none: see its log',
    );
  const results: { file: string; result: RunResult }[] = [];
  for (const file of files) results.push({ file, result: await readResultFile(file) });
  let check: CheckLines | null = null;
  let bisections: BisectRequest[] = [];
  const history = await gateHistory(ctx);
  const threshold = thresholdPercent(ctx.inputs['regression-threshold']);
  if (threshold.deprecation) core.warning(threshold.deprecation, { title: 'runtime-bench' });
  if (history.dir !== null) {
    // The gate checks one result at a time: one per node in cluster mode, each its own host.
    const parts: CheckLines[] = [];
    const offers: BisectRequest[] = [];
    for (const { file, result } of results) {
      const json = await ctx.runtimeBench(
        [
          'check',
          '--history',
          history.dir,
          '--current',
          file,
          '--json',
          '--threshold',
          threshold.percent,
          ...referenceTargetIds(ctx.inputs, result).flatMap((id) => ['--reference', id]),
        ],
        {},
        true,
      );
      const report = JSON.parse(json) as CheckReport;
      parts.push(checkLines(report, ctx.inputs['site-url']));
      offers.push(...bisectRequests(report));
    }
    bisections = await keepBisectRequests(ctx, offers);
    check = mergeCheckLines(
      parts,
      files.map((f) => basename(f)),
    );
  }
  const regressions = check?.regressions ?? [];
  const timings = parseTimings(await readFile(timingsFile(ctx.workDir), 'utf8').catch(() => ''));
  const notChecked = history.dir === null ? history.note : undefined;
  // The alert step's input: what regressed, with its version change, change and site page.
  await writeRegressions(ctx.workDir, check?.entries ?? []);
  await writeFile(p.summary, summaryMarkdown(results, check, timings, notChecked, bisections));
  if (ctx.stepSummary) await writeSummary(results, check, timings, notChecked, bisections);
  ctx.setOutput('summary-path', p.summary);
  ctx.setOutput('regressions', String(regressions.length));
  // Outputs and summary first: a failing step must still hand back what it found.
  const failed = results.flatMap(({ file, result }) =>
    annotationsFor(result, file).filter((a) => a.level === 'error'),
  );
  if (failed.length > 0)
    throw new RbError(
      'RUN_FAILED',
      `${failed.length} benchmark(s) failed or did not complete: ${failed.map((a) => a.title).join('; ')}`,
      'see the job summary; the result was still written and is uploaded',
    );
  if (regressions.length > 0 && ctx.inputs['fail-on-regression'])
    throw new RbError(
      'REGRESSION',
      `${regressions.length} regression(s) against the baseline: ${regressions.join('; ')}`,
      'see the job summary; an intended change is accepted by a baseline reset in the history annotations',
    );
}

export async function stepHistory(ctx: StepContext): Promise<void> {
  await fetchHistory(ctx, await resultFiles(ctx.workDir));
}

export async function stepPublish(ctx: StepContext): Promise<void> {
  const env: Record<string, string> = ctx.inputs.token ? { RB_PUBLISH_TOKEN: ctx.inputs.token } : {};
  await ctx.runtimeBench(
    [
      'publish',
      '--git-dir',
      ctx.workspace,
      '--branch',
      ctx.inputs['data-branch'],
      ...(await resultFiles(ctx.workDir)),
    ],
    env,
  );
}

export async function stepCleanup(ctx: StepContext): Promise<void> {
  const p = paths(ctx.workDir);
  // The kubeconfig goes whatever happened (and whatever keep says): it is a credential.
  await rm(p.kubeconfig, { force: true });
  if (ctx.inputs.keep) return;
  // Cluster mode installed nothing and started no stack: there is no record, nothing to stop.
  const exists = await stat(p.record).then(
    () => true,
    () => false,
  );
  if (!exists) {
    if (clusterMode(ctx.inputs))
      console.log('cluster mode: kubeconfig removed; no stack to stop, nothing installed');
    return;
  }
  // The stacks this action started go with their state (images, logs): --purge. `stack down` is
  // idempotent, so uninstall stopping them again is harmless.
  for (const stack of (await readInstallRecord(p.record)).stacks)
    await ctx.runtimeBench(['stack', 'down', '--stack', stack.name, '--purge']);
  // So does the bisections' stack (its state stays after each bisection's own stack down).
  if ((await bisectRequestsKept(ctx.workDir)).length > 0)
    await ctx.runtimeBench([
      'stack',
      'down',
      '--stack',
      bisectStackName(ctx.inputs['stack-name']),
      '--purge',
    ]);
  await ctx.runtimeBench(['uninstall', '--state', p.record]);
  // The previous versions measured side by side came with their own record.
  const previous = p.previousRecord;
  if (
    await stat(previous).then(
      () => true,
      () => false,
    )
  )
    await ctx.runtimeBench(['uninstall', '--state', previous]);
}

export const STEPS = {
  install: stepInstall,
  'side-by-side': stepSideBySide,
  up: stepUp,
  run: stepRun,
  history: stepHistory,
  summary: stepSummary,
  bisect: stepBisect,
  publish: stepPublish,
  alert: stepAlert,
  cleanup: stepCleanup,
} as const;
