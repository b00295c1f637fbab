// Executes an engine plan (plan.ts): a private daemon (Docker, nerdctl's containerd) or storage
// root (Podman) under the run's own directory, the images loaded offline from a docker-archive of the stack's OCI layout,
// and a teardown that leaves nothing: containers, daemon and shims, mounts, cgroups, the root.
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { EngineName } from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { removeCgroupsNamed } from '../stack/cgroups.ts';
import { processesMentioning, terminate, unmountBelow } from '../stack/cleanup.ts';
import { which } from '../util/path-search.ts';
import { DEFAULT_PREFIX } from '../install/plan.ts';
import { compareSemver } from '../install/semver.ts';
import { exec, processAlive, spawnDaemon, type ExecResult } from '../util/exec.ts';
import { StopWaiting, waitFor } from '../util/wait.ts';
import {
  ENGINE_BINARIES,
  ENGINE_PACKAGES,
  engineCgroupName,
  parseEngineDaemon,
  parseEngineInfo,
  type EngineDaemon,
  type EngineInfo,
} from './plan.ts';
import type { EnginePlan } from './engine-plan.ts';
import { SHIM_STATE_DIR, nerdctlNamespace, shimSockets } from './nerdctl-plan.ts';
import { engineNetwork, reapNetworks, type EngineNetwork } from './network.ts';

/**
 * The bin/ directories of what `runtime-bench install` put under `prefix` for `component`, newest
 * version first (`<prefix>/<component>/<version>[+<toolchain>]/bin`).
 */
export async function installedBinDirs(prefix: string, component: string): Promise<string[]> {
  const versions = (await readdir(join(prefix, component)).catch(() => [] as string[])).filter((v) =>
    /^\d+\.\d+/.test(v),
  );
  const key = (v: string): string => v.replace(/\+.*$/, '');
  return versions.sort((a, b) => compareSemver(key(b), key(a))).map((v) => join(prefix, component, v, 'bin'));
}

/** A containerd build's version from its directory name (`2.0.14+go1.25.14` → `2.0.14`). */
const versionOfDir = (binDir: string): string => basename(dirname(binDir)).replace(/\+.*$/, '');

/**
 * The engine's binaries, or an error naming the field and the package to install. nerdctl and
 * its containerd are taken from what `runtime-bench install` placed under `prefix` (newest
 * first), then from PATH; `containerd` (a nerdctl target's pin) takes exactly that installed
 * version and nothing else.
 */
export async function findEngine(
  engine: EngineName,
  field: string,
  prefix = DEFAULT_PREFIX,
  containerd?: { version: string; field: string },
): Promise<{ cli: string; daemon: string | null }> {
  const names = ENGINE_BINARIES[engine];
  const dirs = async (component: string | null): Promise<string[]> =>
    engine === 'nerdctl' && component ? installedBinDirs(prefix, component) : [];
  const cli = await which(names.cli, await dirs(names.cli));
  // A containerd only with its own runc shim beside it: containerd runs the first
  // containerd-shim-runc-v2 on PATH, and a build of containerd alone would pair it with another's.
  const daemonDirs = [];
  for (const dir of await dirs(names.daemon))
    if (await which(join(dir, 'containerd-shim-runc-v2'))) daemonDirs.push(dir);
  let daemon = names.daemon ? await which(names.daemon, daemonDirs) : null;
  if (containerd) {
    const wanted = containerd.version.replace(/^v/, '');
    const dir = daemonDirs.find((d) => versionOfDir(d) === wanted);
    daemon = dir ? await which(join(dir, 'containerd')) : null;
    if (!daemon)
      throw new RbError(
        'CONFIG_INVALID',
        `${containerd.field}: containerd ${wanted} is not installed under ${prefix}/containerd (with its runc shim); installed: ${[...new Set(daemonDirs.map(versionOfDir))].join(', ') || 'none'}`,
        `runtime-bench install --source go containerd@${wanted}, or name an installed version (or leave containerd out: the newest installed one)`,
      );
  }
  const missing = [!cli && names.cli, names.daemon && !daemon && names.daemon].filter(Boolean);
  if (missing.length > 0)
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${field}: ${engine} is not installed (no ${missing.join(', ')} ${engine === 'nerdctl' ? `under ${prefix} nor ` : ''}on PATH)`,
      ENGINE_PACKAGES[engine],
    );
  return { cli: cli!, daemon };
}

export interface RunningEngine {
  plan: EnginePlan;
  info: EngineInfo;
  /** The daemon under the CLI when the engine reports it (nerdctl's containerd), else null. */
  daemon: (EngineDaemon & { path: string }) | null;
  /** Runs the CLI with the plan's environment; never throws for a non-zero exit. */
  cli(args: readonly string[], timeoutMs: number): Promise<ExecResult>;
  /** Its private bridge network, created on first use (a published port), removed by teardown. */
  network: EngineNetwork;
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
    // In the private root: conmon leaves an `oom` file in its working directory when a container
    // is killed for memory (the bisection of engine.limits.memory.min does that on purpose).
    exec(plan.cli, args, { env, allowFailure: true, timeoutMs, cwd: plan.root });
  let daemonPid: number | null = null;
  let torn = false;
  const network = engineNetwork(plan, cli);
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
      problems.push(...(await network.remove()));
    }
    if (daemonPid !== null && !(await terminate(daemonPid, 20_000)))
      problems.push(`${plan.engine} daemon (pid ${daemonPid}) did not exit`);
    // Shims, conmon and a managed containerd name the private root on their command line.
    problems.push(...(await stopMentioning(plan.root)));
    problems.push(...(await unmountBelow(plan.root)));
    for (const path of [plan.root, ...plan.leftovers])
      await rm(path, { recursive: true, force: true }).catch((e: unknown) =>
        problems.push(`${path}: ${errorMessage(e)}`),
      );
    problems.push(...(await removeCgroupsNamed([plan.cgroupName], 1, { withChildren: true })));
    problems.push(...(await network.sweep()));
    return problems;
  };
  try {
    for (const d of plan.dirs) await mkdir(d, { recursive: true });
    for (const f of plan.files) await writeFile(f.path, f.content);
    if (plan.daemon) {
      const fd = await open(plan.daemon.log, 'a');
      try {
        daemonPid = spawnDaemon(plan.daemon.binary, plan.daemon.args, fd.fd, env, plan.root);
      } finally {
        await fd.close();
      }
      if (plan.daemon.writesPidfile === false) await writeFile(plan.daemon.pidfile, `${daemonPid}\n`);
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
    const ask = async (args: string[]): Promise<string> => {
      const r = await cli([...plan.globalArgs, ...args], 60_000);
      if (r.exitCode !== 0)
        throw new RbError('TARGET_UNAVAILABLE', `${plan.engine} ${args[0]} failed: ${r.stderr.trim()}`);
      return r.stdout;
    };
    const info = await ask(plan.infoArgs);
    const version = plan.versionArgs ? await ask(plan.versionArgs) : undefined;
    const reported = version === undefined ? null : parseEngineDaemon(version);
    return {
      plan,
      info: parseEngineInfo(plan.engine, info, version),
      daemon: reported && plan.daemon ? { ...reported, path: plan.daemon.binary } : null,
      cli,
      network,
      teardown,
    };
  } catch (error) {
    daemonPid ??= await readDaemonPid(plan);
    await teardown();
    throw error;
  }
}

/**
 * Stops the runtime processes naming `root` (shims, conmon, a containerd) and removes the sockets
 * a stopped shim leaves outside it; returns what could not be removed.
 */
async function stopMentioning(root: string): Promise<string[]> {
  const problems: string[] = [];
  for (const p of await processesMentioning([root])) {
    await terminate(p.pid, 5_000);
    for (const socket of shimSockets(p.cmdline))
      await rm(socket, { force: true }).catch((e: unknown) => problems.push(`${socket}: ${errorMessage(e)}`));
  }
  return problems;
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
    const subs = await readdir(runRoot).catch(() => [] as string[]);
    for (const sub of subs)
      for (const file of ['docker.pid', 'containerd.pid']) {
        const daemon = await pidIn(join(runRoot, sub, file));
        if (daemon !== null && (await namesPath(daemon, runRoot))) await terminate(daemon, 20_000);
      }
    problems.push(...(await stopMentioning(runRoot)));
    problems.push(...(await unmountBelow(runRoot)));
    const shimState = subs.map((sub) => join(SHIM_STATE_DIR, nerdctlNamespace(key, sub)));
    for (const path of [runRoot, ...shimState])
      await rm(path, { recursive: true, force: true }).catch((e: unknown) =>
        problems.push(`${path}: ${errorMessage(e)}`),
      );
    const cgroups = (['docker', 'podman', 'nerdctl'] as const).map((e) => engineCgroupName(key, e));
    problems.push(...(await removeCgroupsNamed(cgroups, 1, { withChildren: true })));
    problems.push(...(await reapNetworks(key)));
  }
  return problems;
}
