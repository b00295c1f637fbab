// The executor of a stack's plan (plan.ts decides; this module reads facts, writes, spawns and
// stops). Whichever CRI runtime the stack runs, its differences live in its driver (driver.ts).
import { constants, existsSync, openSync, closeSync } from 'node:fs';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Config } from '@runtime-bench/schemas';
import { createCriClient } from '../cri/client.ts';
import { RbError, errorMessage } from '../errors.ts';
import { exec, processAlive, sleep, spawnDaemon } from '../util/exec.ts';
import { processesMentioning, terminate, unmountBelow } from './cleanup.ts';
import { discoverHandlers, runscShimFor } from './discover.ts';
import type { StackDriver } from './driver.ts';
import { driverFor } from './drivers.ts';
import { bindHybridControllers, readHostFixPlan } from './host-fixes.ts';
import { buildImageLayout, type StackImages } from './images/build.ts';
import { planStack, type StackPlan, type StackPlanInput } from './plan.ts';
import type { RegistryState } from './registry-config.ts';
import { startRegistry, stopRegistry } from './registry.ts';
import { bridgeName } from './network.ts';
import {
  createShimCgroups,
  removeStackCgroups,
  usageHierarchy,
  type UsageHierarchy,
} from './shim-cgroups.ts';
import {
  readStackState,
  stackStateDir,
  stackStatePath,
  writeStackState,
  type CriName,
  type StackState,
} from './state.ts';

export interface StackUpOptions {
  name: string;
  stateDir?: string | undefined;
  /** Which CRI runtime the stack runs (default containerd). */
  cri?: CriName | undefined;
  /** The daemon binary to run (--containerd / --crio); default: the one on PATH. */
  daemonBinary?: string | undefined;
  fixHost: boolean;
  extraHandlers: Config['stack']['extraHandlers'];
  subnet?: string | undefined;
  images: StackImages;
  log: (line: string) => void;
}

export interface StackUpResult {
  state: StackState;
  alreadyUp: boolean;
}

/** Is the stack's daemon alive and answering CRI? */
export async function stackAnswers(state: StackState, timeoutSeconds = 5): Promise<boolean> {
  if (state.pid === null || !processAlive(state.pid) || !existsSync(state.socket)) return false;
  const client = createCriClient('grpc', state.socket, { timeoutSeconds });
  try {
    await client.version();
    return true;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

async function waitForCri(
  cri: CriName,
  socket: string,
  pid: number,
  logPath: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'socket not created';
  while (Date.now() < deadline) {
    if (!processAlive(pid)) break;
    if (existsSync(socket)) {
      const client = createCriClient('grpc', socket, { timeoutSeconds: 2 });
      try {
        await client.version();
        return;
      } catch (error) {
        last = errorMessage(error);
      } finally {
        client.close();
      }
    }
    await sleep(100);
  }
  const log = await readFile(logPath, 'utf8').catch(() => '');
  const tail = log.trim().split('\n').slice(-8).join('\n');
  throw new RbError(
    'STACK_START',
    `${cri} did not answer CRI on ${socket} (${processAlive(pid) ? last : 'it exited'}). Log tail:\n${tail}`,
    `see ${logPath}`,
  );
}

/** Reads (never changes) everything the plan needs from the host. */
async function gatherPlanInput(
  driver: StackDriver,
  opts: StackUpOptions,
  stateDir: string,
): Promise<StackPlanInput> {
  const daemon = await driver.findDaemon(opts.daemonBinary);
  opts.log(`${driver.cri} ${daemon.version} (${daemon.path})`);
  const discovered = await discoverHandlers(driver, daemon.version, opts.extraHandlers);
  const shimDirs: string[] = [];
  if (driver.runscNeedsShim) {
    for (const h of discovered.handlers.filter((x) => x.kind === 'runsc')) {
      const shim = await runscShimFor(h.binary);
      if (shim) shimDirs.push(dirname(shim));
    }
  }
  return {
    name: opts.name,
    stateDir,
    daemon,
    discovered,
    hostFixPlan: await readHostFixPlan(),
    fixHost: opts.fixHost,
    routes: (await exec('ip', ['-4', 'route'], { allowFailure: true })).stdout,
    subnet: opts.subnet,
    cniBinDir: ['/usr/lib/cni', '/opt/cni/bin'].find((d) => existsSync(`${d}/bridge`)) ?? null,
    images: { pause: opts.images.pause, bench: opts.images.bench },
    shimDirs,
    usageHierarchy: await writableUsageHierarchy(),
    env: process.env,
  };
}

/**
 * The hierarchy for shim cgroups, when we may create cgroups in it: a read-only cgroupfs (as in
 * some CI containers) leaves the stack without shim cgroups, and overhead.runtime on ticks.
 */
async function writableUsageHierarchy(): Promise<UsageHierarchy | null> {
  const h = usageHierarchy(await readFile('/proc/self/mountinfo', 'utf8'));
  if (!h) return null;
  try {
    await access(h.mount, constants.W_OK);
    return h;
  } catch {
    return null;
  }
}

/** Carries out the plan up to a daemon answering CRI; the state is recorded as soon as it has a pid. */
async function executePlan(plan: StackPlan, driver: StackDriver): Promise<StackState> {
  if (plan.bindControllers.length > 0) await bindHybridControllers(await readHostFixPlan());
  for (const dir of plan.dirs) await mkdir(dir, { recursive: true });
  // Before the daemon: the shim's `start` fails when its ShimCgroup does not exist.
  if (plan.cgroups) await createShimCgroups(plan.cgroups.hierarchy, plan.cgroups.paths);
  for (const f of plan.files) {
    await mkdir(dirname(f.path), { recursive: true });
    await writeFile(f.path, f.content);
  }
  const logFd = openSync(plan.logPath, 'a');
  let pid: number;
  try {
    pid = spawnDaemon(plan.command.path, plan.command.args, logFd, plan.command.env, plan.command.cwd);
  } finally {
    closeSync(logFd);
  }
  const state: StackState = { ...plan.state, pid, startedAt: new Date().toISOString() };
  // Record the PID before anything else can fail, so that `down` can always stop what we started.
  await writeStackState(state);
  await waitForCri(driver.cri, state.socket, pid, plan.logPath);
  return state;
}

/**
 * The stack's state; a state this version cannot read (written by another runtime-bench version, or
 * cut short) is a leftover of the same stack name: `stack down` stops what it names by its state
 * dir and moves the file aside, so that an upgraded runner's next job starts afresh instead of
 * refusing until someone cleans up by hand.
 */
async function readStateOrCleanUp(
  name: string,
  stateDir: string,
  log: (line: string) => void,
): Promise<StackState | null> {
  try {
    return await readStackState(stateDir);
  } catch (error) {
    if (!(error instanceof RbError && error.code === 'STACK_STATE')) throw error;
    log(`stack "${name}": ${error.message}; cleaning up its leftovers first`);
    await stackDown({ name, stateDir, purge: false, log });
    return readStackState(stateDir);
  }
}

/** Starts (or finds running) the private stack `name` of the CRI runtime `opts.cri`. */
export async function stackUp(opts: StackUpOptions): Promise<StackUpResult> {
  const stateDir = opts.stateDir ?? stackStateDir(opts.name);
  const driver = driverFor(opts.cri ?? 'containerd');
  await mkdir(stateDir, { recursive: true });
  const existing = await readStateOrCleanUp(opts.name, stateDir, opts.log);
  if (existing && existing.cri !== driver.cri) {
    throw new RbError(
      'STACK_CRI_MISMATCH',
      `stack "${opts.name}" runs ${existing.cri}, not ${driver.cri}`,
      `run \`runtime-bench stack down --name ${opts.name} --purge\` first, or use another --name`,
    );
  }
  if (existing && (await stackAnswers(existing))) return { state: existing, alreadyUp: true };
  if (existing) {
    opts.log(`stack "${opts.name}" left state behind (${existing.cri} not answering): cleaning up first`);
    await stackDown({ name: opts.name, stateDir, purge: false, log: opts.log });
  }
  const plan = planStack(driver, await gatherPlanInput(driver, opts, stateDir));
  for (const s of plan.state.skippedHandlers) opts.log(`handler ${s.name} skipped: ${s.reason}`);
  let state: StackState | undefined;
  let registry: RegistryState | null = null;
  try {
    // Before the daemon: CRI-O reads the registries.conf the registry writes only when it starts.
    registry = await startRegistry(stateDir, opts.log);
    state = await executePlan(registry ? { ...plan, state: { ...plan.state, registry } } : plan, driver);
    const layout = await buildImageLayout(stateDir, opts.images);
    try {
      await driver.loadImages(state, layout.layoutDir, layout.names, opts.log);
    } finally {
      await layout.dispose();
    }
    state.imageComponents = layout.components;
    await writeStackState(state);
  } catch (error) {
    if (registry) await stopRegistry(registry);
    if (state || existsSync(`${stateDir}/stack.json`))
      await stackDown({ name: opts.name, stateDir, purge: false, log: opts.log }).catch(() => undefined);
    throw error;
  }
  return { state, alreadyUp: false };
}

export interface StackDownOptions {
  name: string;
  stateDir?: string | undefined;
  purge: boolean;
  log: (line: string) => void;
}

export interface StackDownReport {
  podsRemoved: number;
  processesKilled: number;
  unmountFailures: string[];
  problems: string[];
}

/**
 * Removes every pod of the stack, stops its daemon by PID, kills any shim, conmon or sandbox
 * process still naming the stack, lets the driver remove what its runtime left (containers,
 * cgroups, CNI cache), unmounts leftovers below the state dir and deletes the bridge.
 * Safe to run twice, and after a crash (daemon killed, stale state).
 */
export async function stackDown(opts: StackDownOptions): Promise<StackDownReport> {
  const stateDir = opts.stateDir ?? stackStateDir(opts.name);
  const report: StackDownReport = { podsRemoved: 0, processesKilled: 0, unmountFailures: [], problems: [] };
  const state = await readStackState(stateDir).catch((error: unknown) => {
    report.problems.push(errorMessage(error));
    return null;
  });
  if (state && (await stackAnswers(state))) {
    const client = createCriClient('grpc', state.socket, { timeoutSeconds: 60 });
    try {
      for (const pod of await client.listPodSandbox()) {
        try {
          await client.stopPodSandbox(pod.id);
          await client.removePodSandbox(pod.id);
          report.podsRemoved++;
        } catch (error) {
          report.problems.push(`pod ${pod.id}: ${errorMessage(error)}`);
        }
      }
    } finally {
      client.close();
    }
  }
  if (state?.pid && processAlive(state.pid)) {
    if (!(await terminate(state.pid))) report.problems.push(`${state.cri} ${state.pid} did not exit`);
  }
  if (state?.registry) report.problems.push(...(await stopRegistry(state.registry)));
  // Shims and runsc sandboxes outlive containerd; anything still naming our socket or state dir is ours.
  // With the trailing slash: stack "a" must never match the processes of stack "a2".
  for (const p of await processesMentioning([`${stateDir.replace(/\/+$/, '')}/`])) {
    if (await terminate(p.pid, 2_000)) report.processesKilled++;
    else report.problems.push(`process ${p.pid} (${p.cmdline[0]}) did not exit`);
  }
  if (state) report.problems.push(...(await driverFor(state.cri).cleanup(state)));
  // By the stack's name, so that a state this version cannot read leaves no shim cgroup behind either.
  report.problems.push(
    ...(await removeStackCgroups(usageHierarchy(await readFile('/proc/self/mountinfo', 'utf8')), opts.name)),
  );
  report.unmountFailures = await unmountBelow(stateDir);
  if (state) {
    const link = await exec('ip', ['link', 'show', state.network.bridge], { allowFailure: true });
    if (link.exitCode === 0) await exec('ip', ['link', 'del', state.network.bridge], { allowFailure: true });
    await writeStackState({
      ...state,
      pid: null,
      ...(state.registry ? { registry: { ...state.registry, pid: null } } : {}),
    });
  } else if (existsSync(stackStatePath(stateDir))) {
    // A state this version cannot read (another runtime-bench version wrote it): its processes and
    // mounts are gone by now (found by the state dir); its bridge is named after the stack. Move the
    // file aside so that `stack up` starts afresh instead of refusing the same file again.
    const bridge = bridgeName(opts.name);
    const link = await exec('ip', ['link', 'show', bridge], { allowFailure: true });
    if (link.exitCode === 0) await exec('ip', ['link', 'del', bridge], { allowFailure: true });
    await rename(stackStatePath(stateDir), `${stackStatePath(stateDir)}.unreadable`);
  }
  if (opts.purge && report.unmountFailures.length === 0) await rm(stateDir, { recursive: true, force: true });
  for (const p of report.problems) opts.log(`warning: ${p}`);
  return report;
}
