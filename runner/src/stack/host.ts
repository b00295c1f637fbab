// Everything `stack up` and `stack down` do to the host, behind one interface (as publish/ takes
// its git runner and install/ its InstallEnv): manager.ts sequences these calls and its
// decisions (lifecycle.ts, plan.ts) are pure, so the sequencing is unit-tested with a recording
// host and the real one is exercised by the integration tests. Each method is thin.
import { constants, existsSync, openSync, closeSync } from 'node:fs';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Component, Config } from '@runtime-bench/schemas';
import { createCriClient } from '../cri/client.ts';
import { RbError, errorMessage } from '../errors.ts';
import { childEnv } from '../util/child-env.ts';
import { exec, processAlive, sleep, spawnDaemon } from '../util/exec.ts';
import { deleteLink } from '../util/net-link.ts';
import { processesMentioning, terminate, unmountBelow, type ProcessInfo } from './cleanup.ts';
import { discoverHandlers, runscShimFor } from './discover.ts';
import { lockStack } from './lock.ts';
import type { StackDriver } from './driver.ts';
import { driverFor } from './drivers.ts';
import type { RegistryState } from './registry-config.ts';
import { startRegistry, stopRegistry } from './registry.ts';
import { bindHybridControllers, readHostFixPlan } from './host-fixes.ts';
import { buildImageLayout, type StackImages } from './images/build.ts';
import type { StackPlan, StackPlanInput } from './plan.ts';
import {
  createShimCgroups,
  removeStackCgroups,
  usageHierarchy,
  type UsageHierarchy,
} from './shim-cgroups.ts';
import { readStackState, stackStatePath, writeStackState, type CriName, type StackState } from './state.ts';

/** What `stack up` reads from its options to gather the plan's facts. */
export interface FactOptions {
  name: string;
  /** The daemon binary to run (--containerd / --crio); default: the one on PATH. */
  daemonBinary?: string | undefined;
  fixHost: boolean;
  extraHandlers: Config['stack']['extraHandlers'];
  subnet?: string | undefined;
  images: StackImages;
  log: (line: string) => void;
}

export interface StackHost {
  ensureDir(dir: string): Promise<void>;
  /** Takes the stack's lock (lock.ts); the release it returns never throws. */
  lock(
    name: string,
    stateDir: string,
    log: (line: string) => void,
    options?: { createDir?: boolean },
  ): Promise<() => Promise<void>>;
  /** The stack's state; null when never brought up; RbError STACK_STATE when this version cannot read it. */
  readState(stateDir: string): Promise<StackState | null>;
  writeState(state: StackState): Promise<void>;
  stateFileExists(stateDir: string): boolean;
  /** Renames an unreadable state file to `stack.json.unreadable`. */
  moveStateAside(stateDir: string): Promise<void>;
  removeDir(dir: string): Promise<void>;
  /** Is the state's daemon alive and answering CRI? */
  answers(state: StackState): Promise<boolean>;
  /** Reads (never changes) everything the plan needs from the host. */
  gatherFacts(driver: StackDriver, opts: FactOptions, stateDir: string): Promise<StackPlanInput>;
  /** Carries out the plan's host changes (controllers, dirs, cgroups, files) and spawns the daemon: its pid. */
  /** The stack's own registry on loopback (registry.ts), started before the daemon; null when none can run. */
  startRegistry(stateDir: string, log: (line: string) => void): Promise<RegistryState | null>;
  /** Stops it; problems are returned, not thrown. */
  stopRegistry(registry: RegistryState): Promise<string[]>;
  startDaemon(plan: StackPlan): Promise<number>;
  waitForCri(cri: CriName, socket: string, pid: number, logPath: string): Promise<void>;
  /** Builds the bench images and loads them into the running stack: what they were built from. */
  loadImages(state: StackState, images: StackImages, log: (line: string) => void): Promise<Component[]>;
  /** Stops and removes every pod of a stack that answers; problems are returned, not thrown. */
  removePods(state: StackState): Promise<{ removed: number; problems: string[] }>;
  processAlive(pid: number): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`: true when it is gone. */
  terminate(pid: number, graceMs?: number): Promise<boolean>;
  processesMentioning(needles: string[]): Promise<ProcessInfo[]>;
  /** What the stack's CRI runtime leaves behind once its processes are gone (driver.cleanup). */
  driverCleanup(state: StackState): Promise<string[]>;
  removeStackCgroups(name: string): Promise<string[]>;
  unmountBelow(dir: string): Promise<string[]>;
  /** Deletes the bridge when it exists. */
  deleteBridge(name: string): Promise<void>;
  now(): string;
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

export const realStackHost: StackHost = {
  ensureDir: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  lock: lockStack,
  readState: readStackState,
  writeState: writeStackState,
  stateFileExists: (stateDir) => existsSync(stackStatePath(stateDir)),
  moveStateAside: (stateDir) => rename(stackStatePath(stateDir), `${stackStatePath(stateDir)}.unreadable`),
  removeDir: (dir) => rm(dir, { recursive: true, force: true }),
  answers: (state) => stackAnswers(state),

  async gatherFacts(driver, opts, stateDir) {
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
      // The daemon's environment, and so its shims', conmon's, runtimes' and containers'.
      env: childEnv(process.env),
    };
  },

  startRegistry: (stateDir, log) => startRegistry(stateDir, log),
  stopRegistry: (registry) => stopRegistry(registry),
  async startDaemon(plan) {
    if (plan.bindControllers.length > 0) await bindHybridControllers(await readHostFixPlan());
    for (const dir of plan.dirs) await mkdir(dir, { recursive: true });
    // Before the daemon: the shim's `start` fails when its ShimCgroup does not exist.
    if (plan.cgroups) await createShimCgroups(plan.cgroups.hierarchy, plan.cgroups.paths);
    for (const f of plan.files) {
      await mkdir(dirname(f.path), { recursive: true });
      await writeFile(f.path, f.content);
    }
    const logFd = openSync(plan.logPath, 'a');
    try {
      return spawnDaemon(plan.command.path, plan.command.args, logFd, plan.command.env, plan.command.cwd);
    } finally {
      closeSync(logFd);
    }
  },
  waitForCri: (cri, socket, pid, logPath) => waitForCri(cri, socket, pid, logPath),

  async loadImages(state, images, log) {
    const layout = await buildImageLayout(state.stateDir, images);
    try {
      await driverFor(state.cri).loadImages(state, layout.layoutDir, layout.names, log);
    } finally {
      await layout.dispose();
    }
    return layout.components;
  },

  async removePods(state) {
    const problems: string[] = [];
    let removed = 0;
    const client = createCriClient('grpc', state.socket, { timeoutSeconds: 60 });
    try {
      for (const pod of await client.listPodSandbox()) {
        try {
          await client.stopPodSandbox(pod.id);
          await client.removePodSandbox(pod.id);
          removed++;
        } catch (error) {
          problems.push(`pod ${pod.id}: ${errorMessage(error)}`);
        }
      }
    } finally {
      client.close();
    }
    return { removed, problems };
  },
  processAlive,
  terminate,
  processesMentioning,
  driverCleanup: (state) => driverFor(state.cri).cleanup(state),
  removeStackCgroups: async (name) =>
    removeStackCgroups(usageHierarchy(await readFile('/proc/self/mountinfo', 'utf8')), name),
  unmountBelow,
  async deleteBridge(name) {
    await deleteLink(name);
  },
  now: () => new Date().toISOString(),
};
