// `stack up` and `stack down`: the sequence of steps, over a StackHost (host.ts) that does the
// reading, writing, spawning and stopping. What to do is decided by pure functions: plan.ts (the
// daemon, its files and handlers) and lifecycle.ts (reuse, clean up first, what `down` removes).
// Whichever CRI runtime the stack runs, its differences live in its driver (driver.ts).
import { RbError, errorMessage } from '../errors.ts';
import { driverFor } from './drivers.ts';
import { realStackHost, type FactOptions, type StackHost } from './host.ts';
import { decideUp, planDown, stackProcessNeedle } from './lifecycle.ts';
import { planStack } from './plan.ts';
import { stackStateDir, type CriName, type StackState } from './state.ts';
import { UNKNOWN_VERSION } from './versions.ts';
import type { RegistryState } from './registry-config.ts';

export { stackAnswers } from './host.ts';

export interface StackUpOptions extends FactOptions {
  stateDir?: string | undefined;
  /** Which CRI runtime the stack runs (default containerd). */
  cri?: CriName | undefined;
}

export interface StackUpResult {
  state: StackState;
  alreadyUp: boolean;
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
  host: StackHost,
): Promise<StackState | null> {
  try {
    return await host.readState(stateDir);
  } catch (error) {
    if (!(error instanceof RbError && error.code === 'STACK_STATE')) throw error;
    log(`stack "${name}": ${error.message}; cleaning up its leftovers first`);
    await stackDown({ name, stateDir, purge: false, log }, host);
    return host.readState(stateDir);
  }
}

/**
 * Starts (or finds running) the private stack `name` of the CRI runtime `opts.cri`, holding the
 * stack's lock (lock.ts) while it does: two `up`s of one stack never start two daemons on one root.
 */
export async function stackUp(opts: StackUpOptions, host: StackHost = realStackHost): Promise<StackUpResult> {
  const stateDir = opts.stateDir ?? stackStateDir(opts.name);
  await host.ensureDir(stateDir);
  const release = await host.lock(opts.name, stateDir, opts.log);
  try {
    return await startLocked(opts, stateDir, host);
  } finally {
    await release();
  }
}

async function startLocked(opts: StackUpOptions, stateDir: string, host: StackHost): Promise<StackUpResult> {
  const driver = driverFor(opts.cri ?? 'containerd');
  const existing = await readStateOrCleanUp(opts.name, stateDir, opts.log, host);
  const decision = decideUp({
    name: opts.name,
    cri: driver.cri,
    existing,
    // Asked only of a stack of the same CRI runtime: another one is refused whether it runs or not.
    answers: existing !== null && existing.cri === driver.cri && (await host.answers(existing)),
  });
  if (decision.kind === 'reuse') return { state: decision.state, alreadyUp: true };
  if (decision.cleanFirst) {
    opts.log(decision.cleanFirst);
    await stackDown({ name: opts.name, stateDir, purge: false, log: opts.log }, host);
  }
  const plan = planStack(driver, await host.gatherFacts(driver, opts, stateDir));
  for (const s of plan.state.skippedHandlers) opts.log(`handler ${s.name} skipped: ${s.reason}`);
  for (const h of plan.state.handlers)
    if (h.version === UNKNOWN_VERSION)
      opts.log(
        `handler ${h.name}: ${h.binary} names no version we can read; recorded as unknown with its output`,
      );
  let state: StackState | undefined;
  let registry: RegistryState | null = null;
  try {
    // Before the daemon: CRI-O reads the registries.conf the registry writes only when it starts.
    registry = await host.startRegistry(stateDir, opts.log);
    const pid = await host.startDaemon(plan);
    state = { ...plan.state, ...(registry ? { registry } : {}), pid, startedAt: host.now() };
    // Record the PID before anything else can fail, so that `down` can always stop what we started.
    await host.writeState(state);
    await host.waitForCri(driver.cri, state.socket, pid, plan.logPath);
    state.imageComponents = await host.loadImages(state, opts.images, opts.log);
    await host.writeState(state);
  } catch (error) {
    if (registry) await host.stopRegistry(registry);
    if (state || host.stateFileExists(stateDir))
      await stackDown({ name: opts.name, stateDir, purge: false, log: opts.log }, host).catch(
        () => undefined,
      );
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
 * Holding the stack's lock (a stack without a state dir has nothing to guard, and gets none made):
 * removes every pod of the stack, stops its daemon by PID, kills any shim, conmon or sandbox
 * process still naming the stack, lets the driver remove what its runtime left (containers,
 * cgroups, CNI cache), unmounts leftovers below the state dir and deletes the bridge.
 * Safe to run twice, and after a crash (daemon killed, stale state).
 */
export async function stackDown(
  opts: StackDownOptions,
  host: StackHost = realStackHost,
): Promise<StackDownReport> {
  const stateDir = opts.stateDir ?? stackStateDir(opts.name);
  const release = await host.lock(opts.name, stateDir, opts.log, { createDir: false });
  try {
    return await takeDownLocked(opts, stateDir, host);
  } finally {
    await release();
  }
}

async function takeDownLocked(
  opts: StackDownOptions,
  stateDir: string,
  host: StackHost,
): Promise<StackDownReport> {
  const report: StackDownReport = { podsRemoved: 0, processesKilled: 0, unmountFailures: [], problems: [] };
  const state = await host.readState(stateDir).catch((error: unknown) => {
    report.problems.push(errorMessage(error));
    return null;
  });
  if (state && (await host.answers(state))) {
    const pods = await host.removePods(state);
    report.podsRemoved = pods.removed;
    report.problems.push(...pods.problems);
  }
  if (state?.pid && host.processAlive(state.pid)) {
    if (!(await host.terminate(state.pid))) report.problems.push(`${state.cri} ${state.pid} did not exit`);
  }
  if (state?.registry) report.problems.push(...(await host.stopRegistry(state.registry)));
  // Shims and runsc sandboxes outlive containerd; anything still naming our socket or state dir is ours.
  for (const p of await host.processesMentioning([stackProcessNeedle(stateDir)])) {
    if (await host.terminate(p.pid, 2_000)) report.processesKilled++;
    else report.problems.push(`process ${p.pid} (${p.cmdline[0]}) did not exit`);
  }
  if (state) report.problems.push(...(await host.driverCleanup(state)));
  // By the stack's name, so that a state this version cannot read leaves no shim cgroup behind either.
  report.problems.push(...(await host.removeStackCgroups(opts.name)));
  report.unmountFailures = await host.unmountBelow(stateDir);
  const plan = planDown({
    name: opts.name,
    state,
    stateFileExists: host.stateFileExists(stateDir),
    purge: opts.purge,
    unmountFailures: report.unmountFailures,
  });
  if (plan.bridge) await host.deleteBridge(plan.bridge);
  if (plan.recordStopped) await host.writeState(plan.recordStopped);
  if (plan.moveStateAside) await host.moveStateAside(stateDir);
  if (plan.removeStateDir) await host.removeDir(stateDir);
  for (const p of report.problems) opts.log(`warning: ${p}`);
  return report;
}
