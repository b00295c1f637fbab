// Executes an engine plan (plan.ts): a private daemon (Docker) or storage root (Podman) under the
// run's own directory, the images loaded offline from a docker-archive of the stack's OCI layout,
// and a teardown that leaves nothing: containers, daemon and shims, mounts, cgroups, the root.
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineName } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { removeCgroupsNamed } from '../stack/cgroups.ts';
import { processesMentioning, terminate, unmountBelow } from '../stack/cleanup.ts';
import { which } from '../stack/discover.ts';
import { exec, processAlive, spawnDaemon, type ExecResult } from '../util/exec.ts';
import { StopWaiting, waitFor } from '../util/wait.ts';
import {
  ENGINE_BINARIES,
  ENGINE_PACKAGES,
  engineCgroupName,
  parseEngineInfo,
  type EngineInfo,
  type EnginePlan,
} from './plan.ts';

/** The engine's binaries, or an error naming the field and the package to install. */
export async function findEngine(
  engine: EngineName,
  field: string,
): Promise<{ cli: string; daemon: string | null }> {
  const names = ENGINE_BINARIES[engine];
  const cli = await which(names.cli);
  const daemon = names.daemon ? await which(names.daemon) : null;
  const missing = [!cli && names.cli, names.daemon && !daemon && names.daemon].filter(Boolean);
  if (missing.length > 0)
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${field}: ${engine} is not installed (no ${missing.join(', ')} on PATH)`,
      ENGINE_PACKAGES[engine],
    );
  if (engine === 'nerdctl')
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${field}: the nerdctl engine is not supported yet`,
      'use engine: docker or podman',
    );
  return { cli: cli!, daemon };
}

export interface RunningEngine {
  plan: EnginePlan;
  info: EngineInfo;
  /** Runs the CLI with the plan's environment; never throws for a non-zero exit. */
  cli(args: readonly string[], timeoutMs: number): Promise<ExecResult>;
  /** Removes everything of the engine; returns what could not be removed. Idempotent. */
  teardown(): Promise<string[]>;
}

async function readDaemonPid(plan: EnginePlan): Promise<number | null> {
  if (!plan.daemon) return null;
  const text = await readFile(plan.daemon.pidfile, 'utf8').catch(() => '');
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Sets the engine up, loads the images from `archive`; on failure tears down what it made. */
export async function startEngine(
  plan: EnginePlan,
  archive: string,
  log: (line: string) => void,
): Promise<RunningEngine> {
  const env = plan.env;
  const cli = (args: readonly string[], timeoutMs: number): Promise<ExecResult> =>
    exec(plan.cli, args, { env, allowFailure: true, timeoutMs });
  let daemonPid: number | null = null;
  let torn = false;
  const teardown = async (): Promise<string[]> => {
    if (torn) return [];
    torn = true;
    const problems: string[] = [];
    const live = daemonPid === null || processAlive(daemonPid);
    if (live) {
      const ids = await cli([...plan.globalArgs, 'ps', '-aq'], 30_000);
      const list = ids.stdout.split('\n').filter(Boolean);
      if (list.length > 0) {
        const rmArgs = plan.engine === 'podman' ? ['rm', '-f', '-t', '0'] : ['rm', '-f'];
        const r = await cli([...plan.globalArgs, ...rmArgs, ...list], 60_000);
        if (r.exitCode !== 0) problems.push(`${plan.engine} rm: ${r.stderr.trim()}`);
      }
    }
    if (daemonPid !== null && !(await terminate(daemonPid, 20_000)))
      problems.push(`${plan.engine} daemon (pid ${daemonPid}) did not exit`);
    // Shims, conmon and a managed containerd name the private root on their command line.
    for (const p of await processesMentioning([plan.root])) await terminate(p.pid, 5_000);
    problems.push(...(await unmountBelow(plan.root)));
    await rm(plan.root, { recursive: true, force: true }).catch((e: unknown) =>
      problems.push(`${plan.root}: ${errorMessage(e)}`),
    );
    problems.push(...(await removeCgroupsNamed([plan.cgroupName], 1, { withChildren: true })));
    return problems;
  };
  try {
    for (const d of plan.dirs) await mkdir(d, { recursive: true });
    for (const f of plan.files) await writeFile(f.path, f.content);
    if (plan.daemon) {
      const fd = await open(plan.daemon.log, 'a');
      try {
        daemonPid = spawnDaemon(plan.daemon.binary, plan.daemon.args, fd.fd, env);
      } finally {
        await fd.close();
      }
      const pid = daemonPid;
      await waitFor(
        async () => {
          if (!processAlive(pid)) throw new StopWaiting(`${plan.daemon!.binary} exited`);
          const r = await cli([...plan.globalArgs, 'version'], 10_000);
          return r.exitCode === 0 ? true : null;
        },
        { what: `${plan.engine} daemon`, timeoutMs: 60_000, intervalMs: 200 },
      ).catch(async (error: unknown) => {
        const tail = (await readFile(plan.daemon!.log, 'utf8').catch(() => '')).trim().split('\n').slice(-5);
        throw new RbError('TARGET_UNAVAILABLE', `${errorMessage(error)}; its log ends:\n${tail.join('\n')}`);
      });
    }
    log(`${plan.engine}: loading images into ${plan.root}`);
    const load = await cli([...plan.globalArgs, 'load', '-i', archive], 600_000);
    if (load.exitCode !== 0)
      throw new RbError('TARGET_UNAVAILABLE', `${plan.engine} load failed: ${load.stderr.trim()}`);
    const infoArgs =
      plan.engine === 'docker' ? ['info', '--format', '{{json .}}'] : ['info', '--format', 'json'];
    const info = await cli([...plan.globalArgs, ...infoArgs], 60_000);
    if (info.exitCode !== 0)
      throw new RbError('TARGET_UNAVAILABLE', `${plan.engine} info failed: ${info.stderr.trim()}`);
    return { plan, info: parseEngineInfo(plan.engine, info.stdout), cli, teardown };
  } catch (error) {
    daemonPid ??= await readDaemonPid(plan);
    await teardown();
    throw error;
  }
}

/** The file naming the runtime-bench process that owns a run root. */
export const OWNER_FILE = 'owner.pid';

const pidIn = async (file: string): Promise<number | null> => {
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
};

/** Does process `pid` name `path` on its command line (so a recycled pid is never killed)? */
async function namesPath(pid: number, path: string): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').some((arg) => arg.includes(path));
}

/**
 * Removes the run roots under `dir` whose owner is gone (a runtime-bench killed with SIGKILL has
 * no teardown): their daemons, shims, mounts, cgroups and files, as a teardown would.
 */
export async function reapAbandoned(dir: string, log: (line: string) => void): Promise<string[]> {
  const problems: string[] = [];
  for (const key of await readdir(dir).catch(() => [] as string[])) {
    const runRoot = join(dir, key);
    const owner = await pidIn(join(runRoot, OWNER_FILE));
    if (owner !== null && processAlive(owner)) continue;
    log(`engines: removing what an earlier run left in ${runRoot}`);
    for (const sub of await readdir(runRoot).catch(() => [] as string[])) {
      const daemon = await pidIn(join(runRoot, sub, 'docker.pid'));
      if (daemon !== null && (await namesPath(daemon, runRoot))) await terminate(daemon, 20_000);
    }
    for (const p of await processesMentioning([runRoot])) await terminate(p.pid, 5_000);
    problems.push(...(await unmountBelow(runRoot)));
    await rm(runRoot, { recursive: true, force: true }).catch((e: unknown) =>
      problems.push(`${runRoot}: ${errorMessage(e)}`),
    );
    const cgroups = (['docker', 'podman'] as const).map((e) => engineCgroupName(key, e));
    problems.push(...(await removeCgroupsNamed(cgroups, 1, { withChildren: true })));
  }
  return problems;
}
