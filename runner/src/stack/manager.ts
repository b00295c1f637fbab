import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import type { Component, HostFix } from '@runtime-bench/schemas';
import { createCriClient } from '../cri/client.ts';
import { RbError, errorMessage } from '../errors.ts';
import { exec, processAlive, sleep, spawnDaemon } from '../util/exec.ts';
import { processesMentioning, terminate, unmountBelow } from './cleanup.ts';
import {
  renderCniConflist,
  renderContainerdConfig,
  renderRunscConfig,
  type HandlerSpec,
} from './containerd-config.ts';
import { discoverHandlers, findContainerd, runscShimFor, which } from './discover.ts';
import { applyHostFixes, readHostFixPlan } from './host-fixes.ts';
import { buildBenchRootfs, buildLargeFillerRoots, buildPauseRootfs } from './images/rootfs.ts';
import { buildLayer, tarLayout, writeImageLayout, type Layer } from './images/layout.ts';
import { bridgeName, pickSubnet } from './network.ts';
import { readStackState, stackStateDir, writeStackState, type StackState } from './state.ts';
import { containerdConfigVersion, parseSemver } from './versions.ts';

export interface StackUpOptions {
  name: string;
  stateDir?: string | undefined;
  containerd?: string | undefined;
  fixHost: boolean;
  extraHandlers: { name: string; binary: string; kind?: 'runc' | 'crun' | 'youki' | 'runsc' | undefined }[];
  subnet?: string | undefined;
  /** `large` (of size `largeSizeMiB`, 0 = none) is the big image of startup.first-output. */
  images: { pause: string; bench: string; large?: string; largeSizeMiB?: number };
  log: (line: string) => void;
}

export interface StackUpResult {
  state: StackState;
  alreadyUp: boolean;
}

/** Is the stack's containerd alive and answering CRI? */
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

async function waitForCri(socket: string, pid: number, logPath: string, timeoutMs = 30_000): Promise<void> {
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
    `containerd did not answer CRI on ${socket} (${processAlive(pid) ? last : 'it exited'}). Log tail:\n${tail}`,
    `see ${logPath}`,
  );
}

async function versionLine(command: string, args: string[]): Promise<string> {
  const r = await exec(command, args, { allowFailure: true });
  return `${r.stdout}${r.stderr}`.trim().split('\n')[0] ?? '';
}

/** Layers one after the other: a large image's layers are big, one at a time keeps memory low. */
async function buildLayers(roots: string[]): Promise<Layer[]> {
  const layers: Layer[] = [];
  for (const root of roots) layers.push(await buildLayer(root));
  return layers;
}

/** Builds the pause and bench images offline from host binaries and imports them into the stack. */
async function buildAndImportImages(
  state: Pick<StackState, 'stateDir' | 'socket' | 'ctr'> & { images: StackUpOptions['images'] },
  log: (l: string) => void,
): Promise<Component[]> {
  const catatonit = await which('catatonit');
  const busybox = (await which('busybox')) ?? '/bin/busybox';
  const sysbench = await which('sysbench');
  if (!catatonit || !sysbench || !existsSync(busybox)) {
    throw new RbError(
      'IMAGE_BUILD',
      `image ingredients missing: ${[!catatonit && 'catatonit', !sysbench && 'sysbench', !existsSync(busybox) && 'busybox'].filter(Boolean).join(', ')}`,
      'apt-get install catatonit sysbench busybox-static',
    );
  }
  const work = await mkdtemp(join(state.stateDir, 'image-build-'));
  try {
    const ingredients = { catatonit, busybox, sysbench };
    await buildPauseRootfs(join(work, 'pause'), ingredients);
    await buildBenchRootfs(join(work, 'bench'), ingredients);
    const built = await writeImageLayout(join(work, 'layout'), [
      {
        name: state.images.pause,
        layers: [await buildLayer(join(work, 'pause'))],
        entrypoint: ['/bin/pause', '-P'],
      },
      {
        name: state.images.bench,
        layers: [await buildLayer(join(work, 'bench'))],
        entrypoint: [],
        cmd: ['/bin/sh'],
      },
      ...(state.images.large && (state.images.largeSizeMiB ?? 0) > 0
        ? [
            {
              name: state.images.large,
              layers: await buildLayers([
                join(work, 'bench'),
                ...(await buildLargeFillerRoots(join(work, 'large'), state.images.largeSizeMiB!)),
              ]),
              entrypoint: [],
              cmd: ['/bin/sh'],
            },
          ]
        : []),
    ]);
    const tarPath = join(state.stateDir, 'images.tar');
    await tarLayout(join(work, 'layout'), tarPath);
    log(`importing images into ${state.socket}`);
    await exec(state.ctr, [
      '-a',
      state.socket,
      '-n',
      'k8s.io',
      'images',
      'import',
      '--all-platforms',
      tarPath,
    ]);
    const sysbenchLine = await versionLine(sysbench, ['--version']);
    const busyboxLine = (await exec(busybox, ['--help'], { allowFailure: true })).stdout.split('\n')[0] ?? '';
    const catatonitLine = await versionLine(catatonit, ['--version']);
    return [
      {
        name: 'sysbench',
        role: 'workload',
        version: parseSemver(sysbenchLine) ?? sysbenchLine,
        path: sysbench,
        detail: sysbenchLine,
      },
      {
        name: 'busybox',
        role: 'workload',
        version: parseSemver(busyboxLine) ?? 'unknown',
        path: busybox,
        detail: busyboxLine,
      },
      {
        name: 'catatonit',
        role: 'workload',
        version: parseSemver(catatonitLine) ?? 'unknown',
        path: catatonit,
        detail: catatonitLine,
      },
      ...built.map((b): Component => ({
        name: b.name,
        role: 'image',
        version: b.manifestDigest,
        detail: `config ${b.configDigest}`,
      })),
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Starts (or finds running) the private containerd stack `name`. */
export async function stackUp(opts: StackUpOptions): Promise<StackUpResult> {
  const stateDir = opts.stateDir ?? stackStateDir(opts.name);
  await mkdir(stateDir, { recursive: true });
  const existing = await readStackState(stateDir);
  if (existing && (await stackAnswers(existing))) return { state: existing, alreadyUp: true };
  if (existing) {
    opts.log(`stack "${opts.name}" left state behind (containerd not answering): cleaning up first`);
    await stackDown({ name: opts.name, stateDir, purge: false, log: opts.log });
  }

  const containerd = await findContainerd(opts.containerd);
  const configVersion = containerdConfigVersion(containerd.version);
  opts.log(`containerd ${containerd.version} (${containerd.path}), config version ${configVersion}`);
  const discovered = await discoverHandlers(containerd.version, opts.extraHandlers);

  const plan = await readHostFixPlan();
  const hostFixes: HostFix[] = await applyHostFixes(plan, opts.fixHost);
  const crunBlocked = plan.hybridV2Controllers.length > 0 && !opts.fixHost;
  const handlers = discovered.handlers.filter((h) => !(crunBlocked && h.kind === 'crun'));
  const skipped = [
    ...discovered.skipped,
    ...discovered.handlers
      .filter((h) => crunBlocked && h.kind === 'crun')
      .map((h) => ({
        name: h.name,
        binary: h.binary,
        reason: `cgroup hybrid mode with v2-only controllers (${plan.hybridV2Controllers.join(', ')}): crun refuses; use --fix-host`,
      })),
  ];
  for (const s of skipped) opts.log(`handler ${s.name} skipped: ${s.reason}`);
  if (handlers.length === 0) {
    throw new RbError(
      'STACK_NO_RUNTIME',
      'no usable OCI runtime found (runc, crun, youki or runsc with its shim)',
      'apt-get install runc crun, or add stack.extraHandlers to the config',
    );
  }

  const socket = join(stateDir, 'containerd.sock');
  const handlerSpecs: HandlerSpec[] = [];
  for (const h of handlers) {
    const spec: HandlerSpec = { name: h.name, kind: h.kind, binary: h.binary };
    if (h.kind === 'runsc') {
      spec.runscConfigPath = join(stateDir, `runsc-${h.name}.toml`);
      await writeFile(spec.runscConfigPath, renderRunscConfig(h.binary, join(stateDir, 'runsc')));
    }
    handlerSpecs.push(spec);
  }
  const routes = (await exec('ip', ['-4', 'route'], { allowFailure: true })).stdout;
  const network = {
    name: `runtime-bench-${opts.name}`,
    bridge: bridgeName(opts.name),
    subnet: opts.subnet ?? pickSubnet(opts.name, routes),
  };
  await mkdir(join(stateDir, 'cni'), { recursive: true });
  await writeFile(
    join(stateDir, 'cni', '10-runtime-bench.conflist'),
    renderCniConflist(network.name, network.bridge, network.subnet, join(stateDir, 'cni-ipam')),
  );
  const cniBinDir = ['/usr/lib/cni', '/opt/cni/bin'].find((d) => existsSync(join(d, 'bridge')));
  if (!cniBinDir)
    throw new RbError(
      'STACK_NO_CNI',
      'no CNI plugins found in /usr/lib/cni or /opt/cni/bin',
      'apt-get install containernetworking-plugins',
    );
  const configPath = join(stateDir, 'config.toml');
  await writeFile(
    configPath,
    renderContainerdConfig({
      configVersion,
      root: join(stateDir, 'root'),
      state: join(stateDir, 'state'),
      socket,
      optDir: join(stateDir, 'opt'),
      pauseImage: opts.images.pause,
      cniBinDir,
      cniConfDir: join(stateDir, 'cni'),
      restrictOomScoreAdj: plan.restrictOomScoreAdj,
      defaultHandler: handlers[0]!.name,
      handlers: handlerSpecs,
    }),
  );

  // containerd finds containerd-shim-* on its PATH: that version's directory goes first.
  const shimDirs = [dirname(containerd.path)];
  for (const h of handlers.filter((x) => x.kind === 'runsc')) {
    const shim = await runscShimFor(h.binary);
    if (shim && !shimDirs.includes(dirname(shim))) shimDirs.push(dirname(shim));
  }
  const env = {
    ...process.env,
    PATH: [...shimDirs, process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'].join(delimiter),
  };
  const logPath = join(stateDir, 'containerd.log');
  const logFd = openSync(logPath, 'a');
  let pid: number;
  try {
    pid = spawnDaemon(containerd.path, ['--config', configPath], logFd, env);
  } finally {
    closeSync(logFd);
  }
  const state: StackState = {
    name: opts.name,
    stateDir,
    socket,
    pid,
    startedAt: new Date().toISOString(),
    containerd: { path: containerd.path, version: containerd.version, configVersion },
    ctr: containerd.ctr,
    handlers: handlers.map((h) => ({
      name: h.name,
      kind: h.kind,
      binary: h.binary,
      version: h.version,
      versionOutput: h.versionOutput,
    })),
    skippedHandlers: skipped,
    hostFixes,
    network,
    images: { pause: opts.images.pause, bench: opts.images.bench },
    imageComponents: [],
  };
  // Record the PID before anything else can fail, so that `down` can always stop what we started.
  await writeStackState(state);
  try {
    await waitForCri(socket, pid, logPath);
    state.imageComponents = await buildAndImportImages({ ...state, images: opts.images }, opts.log);
    await writeStackState(state);
  } catch (error) {
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
 * Removes every pod of the stack, stops its containerd by PID, kills any shim or sandbox process
 * still naming the stack, unmounts leftovers below the state dir and deletes the bridge.
 * Safe to run twice, and after a crash (no containerd, stale state).
 */
export async function stackDown(opts: StackDownOptions): Promise<StackDownReport> {
  const stateDir = opts.stateDir ?? stackStateDir(opts.name);
  const report: StackDownReport = { podsRemoved: 0, processesKilled: 0, unmountFailures: [], problems: [] };
  const state = await readStackState(stateDir).catch((error: unknown) => {
    report.problems.push(errorMessage(error));
    return null;
  });
  const socket = state?.socket ?? join(stateDir, 'containerd.sock');
  if (state && (await stackAnswers(state))) {
    const client = createCriClient('grpc', socket, { timeoutSeconds: 60 });
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
    if (!(await terminate(state.pid))) report.problems.push(`containerd ${state.pid} did not exit`);
  }
  // Shims and runsc sandboxes outlive containerd; anything still naming our socket or state dir is ours.
  // With the trailing slash: stack "a" must never match the processes of stack "a2".
  for (const p of await processesMentioning([`${stateDir.replace(/\/+$/, '')}/`])) {
    if (await terminate(p.pid, 2_000)) report.processesKilled++;
    else report.problems.push(`process ${p.pid} (${p.cmdline[0]}) did not exit`);
  }
  report.unmountFailures = await unmountBelow(stateDir);
  if (state) {
    const link = await exec('ip', ['link', 'show', state.network.bridge], { allowFailure: true });
    if (link.exitCode === 0) await exec('ip', ['link', 'del', state.network.bridge], { allowFailure: true });
    await writeStackState({ ...state, pid: null });
  }
  if (opts.purge && report.unmountFailures.length === 0) await rm(stateDir, { recursive: true, force: true });
  for (const p of report.problems) opts.log(`warning: ${p}`);
  return report;
}
