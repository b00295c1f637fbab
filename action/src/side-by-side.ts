// The previous version beside the new one (docs/version-change.md): before the stack comes up,
// `runtime-bench data side-by-side` reads the last nights of this host class from the data
// branch; a tracked runtime (asked for at a moving version, runc@latest) that moved since its last
// night gets that night's version installed beside it, by the same source, into its own install
// record (the first install's stays as it was, so uninstall undoes each), and the run config
// declares the pair (config.versionChanges) and shuffles each round's order. Nothing here may
// fail the night: without the branch, or when the old version cannot be installed, the run goes
// on as before and the log says why.
import { readFile, writeFile } from 'node:fs/promises';
import { paths } from './work-dir.ts';
import * as core from '@actions/core';
import { errorMessage } from '@runtime-bench/runner';
import type { SideBySidePlan } from '@runtime-bench/runner/compare';
import { handlerName, readInstallRecord, type InstallRecord } from '@runtime-bench/runner/install';
import { clusterMode } from './cluster.ts';
import { installSource, thresholdPercent, type ActionInputs } from './inputs.ts';
import { NO_SIDE_BY_SIDE, nightlyHandlers, targetName, type SideBySide } from './run-config.ts';
import type { StepContext } from './step-context.ts';
import { sweepMode } from './sweep.ts';

/**
 * The side-by-side step, after install and before up: its own step because it alone (with
 * history and publish) gets the token, to read a private data branch; it starts nothing.
 */
export async function stepSideBySide(ctx: StepContext): Promise<void> {
  const off = sideBySideOff(ctx.inputs);
  const beside =
    off === null
      ? await prepareSideBySide(ctx, await readInstallRecord(paths(ctx.workDir).record))
      : NO_SIDE_BY_SIDE;
  if (off !== null) console.log(`side by side: not measured (${off})`);
  await writeFile(paths(ctx.workDir).sideBySide, `${JSON.stringify(beside, null, 2)}\n`);
}

/** The up step's view: what the side-by-side step wrote, or nothing (a job without that step). */
export async function readSideBySide(workDir: string): Promise<SideBySide> {
  const text = await readFile(paths(workDir).sideBySide, 'utf8').catch(() => null);
  return text === null ? NO_SIDE_BY_SIDE : (JSON.parse(text) as SideBySide);
}

/** A target of tonight's run whose version may have moved: asked for at a moving version. */
export interface Tracked {
  /** The target id the run will give it (targetName/handler). */
  id: string;
  handler: string;
  /** The OCI runtime and the version installed tonight. */
  name: string;
  version: string;
}

/** The tracked targets: the handlers renamed `<runtime>-latest` (nightlyHandlers), with their installed versions. Pure. */
export function trackedTargets(inputs: ActionInputs, record: InstallRecord): Tracked[] {
  const named = nightlyHandlers(inputs, record);
  const tracked: Tracked[] = [];
  named.forEach((h, i) => {
    const original = record.handlers[i]!;
    if (h.name === original.name) return;
    const component = record.components.find(
      (c) => c.role === 'oci' && handlerName(c.name, c.version) === original.name,
    );
    if (!component) return;
    tracked.push({
      id: `${targetName(inputs, record)}/${h.name}`,
      handler: h.name,
      name: component.name,
      version: component.version,
    });
  });
  return tracked;
}

/** Why the side-by-side measurement does not apply to this job, or null when it does. */
export function sideBySideOff(inputs: ActionInputs): string | null {
  if (!inputs['side-by-side']) return 'side-by-side: false';
  if (clusterMode(inputs)) return 'cluster mode measures what the cluster runs';
  if (sweepMode(inputs)) return 'a sweep measures its versions side by side already';
  if (inputs.source === 'path') return 'source path installs no other version';
  return null;
}

/** Plans and installs the previous versions; NO_SIDE_BY_SIDE whenever it cannot (logged). */
export async function prepareSideBySide(ctx: StepContext, record: InstallRecord): Promise<SideBySide> {
  const tracked = trackedTargets(ctx.inputs, record);
  if (tracked.length === 0) {
    console.log('side by side: not measured (no runtime asked for at a moving version)');
    return NO_SIDE_BY_SIDE;
  }
  let planned: SideBySidePlan['pairs'];
  try {
    const env: Record<string, string> = ctx.inputs.token ? { RB_PUBLISH_TOKEN: ctx.inputs.token } : {};
    const json = await ctx.runtimeBench(
      [
        'data',
        'side-by-side',
        '--git-dir',
        ctx.workspace,
        '--branch',
        ctx.inputs['data-branch'],
        '--threshold',
        `${thresholdPercent(ctx.inputs['regression-threshold']).percent}%`,
        '--json',
        ...tracked.flatMap((t) => ['--target', `${t.id}=${t.version}`]),
      ],
      env,
      true,
    );
    const plan = JSON.parse(json) as SideBySidePlan;
    for (const note of plan.notes) console.log(`side by side: ${note}`);
    planned = plan.pairs;
  } catch (error) {
    core.warning(
      `side by side: the data branch could not be read (${errorMessage(error)}); tonight measures no previous version`,
      {
        title: 'runtime-bench',
      },
    );
    return NO_SIDE_BY_SIDE;
  }
  if (planned.length === 0) return NO_SIDE_BY_SIDE;
  const existing = new Set(record.handlers.map((h) => h.name));
  const toInstall = [
    ...new Set(
      planned.filter((p) => !existing.has(handlerName(p.name, p.from))).map((p) => `${p.name}@${p.from}`),
    ),
  ];
  let previous: InstallRecord | null = null;
  if (toInstall.length > 0) {
    try {
      await ctx.runtimeBench([
        'install',
        '--source',
        installSource(ctx.inputs),
        '--prefix',
        ctx.inputs.prefix,
        '--state',
        paths(ctx.workDir).previousRecord,
        ...toInstall,
      ]);
      previous = await readInstallRecord(paths(ctx.workDir).previousRecord);
    } catch (error) {
      core.warning(
        `side by side: ${toInstall.join(', ')} could not be installed (${errorMessage(error)}); tonight measures no previous version`,
        { title: 'runtime-bench' },
      );
      return NO_SIDE_BY_SIDE;
    }
  }
  const available = new Set([...existing, ...(previous?.handlers ?? []).map((h) => h.name)]);
  const pairs = planned
    .map((p) => ({
      before: handlerName(p.name, p.from),
      after: tracked.find((t) => t.id === p.target)?.handler ?? '',
    }))
    .filter((p) => p.after !== '' && available.has(p.before));
  for (const p of planned)
    console.log(`side by side: ${p.name} ${p.from} beside ${p.to}, night ${p.look} (${p.why})`);
  return { handlers: previous?.handlers ?? [], pairs };
}
