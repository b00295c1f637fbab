// The engine target kind: Docker, Podman or nerdctl driven through their CLI, each with a private
// daemon (dockerd, containerd) or storage root under /var/lib/runtime-bench/engines/<run id>, the images built offline by the
// stack's image builder and loaded from a docker-archive, and everything removed at the end (also
// after a signal). Each engine × OCI runtime is a target; the shared loop interleaves them.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Component, ComponentBuild, Config, EngineTargetConfig, Target } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import { readBuildRecord } from '../install/build.ts';
import { readHostFingerprint } from '../host/fingerprint.ts';
import { newSlot, type Slot } from '../run/orchestrate.ts';
import type { PreparedRun, RunContext, TargetKind } from '../run/pipeline.ts';
import { ociVersion } from '../stack/discover.ts';
import { which } from '../util/path-search.ts';
import { buildImageLayout } from '../stack/images/build.ts';
import { tarDockerArchive } from '../stack/images/layout.ts';
import { guessOciKind } from '../stack/versions.ts';
import { selectOfKind } from '../suites/registry.ts';
import { ENGINE_BENCHMARKS } from './benchmarks.ts';
import type { EngineBenchmark, EngineContext } from './engine-benchmark.ts';
import { OWNER_FILE, findEngine, reapAbandoned, startEngine, type RunningEngine } from './engine.ts';
import { firewallSnapshot, sweepFirewall } from './network.ts';
import { nerdctlSpecVersion, runtimeSpecRefusal } from './spec-probe.ts';
import { specRefusalReason } from './spec-version.ts';
import { parseUlimits, planEngine, runArgs } from './plan.ts';
import type { RuntimeBinary } from './engine-plan.ts';

/**
 * Where a run's engines keep their private roots: `<dir>/<run id's random part>/<target index>`,
 * short because Podman refuses a runroot over 50 characters.
 */
export const ENGINES_DIR = '/var/lib/runtime-bench/e';

const field = (index: number, name: string): string => `targets[${index}].${name}`;

/**
 * The engine targets of a config and the engine.* benchmarks it selects. Other targets are refused
 * unless `besideOthers` (kinds/mixed-kind.ts runs them in the same run through their own kind).
 */
export function engineKind(config: Config, where = 'config', besideOthers = false): TargetKind {
  const targets = config.targets.flatMap((t, i) => (t.kind === 'engine' ? [{ target: t, index: i }] : []));
  if (!besideOthers && targets.length !== config.targets.length)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: targets: engine targets run in a config of their own (found ${config.targets.length - targets.length} other target(s))`,
      'put the engine targets in a config of their own; compare their results with the CRI-level runs by `runtime-bench compare`',
    );
  const selected = selectOfKind(ENGINE_BENCHMARKS, config, where, 'engine');
  return { prepare: (ctx) => prepareEngineRun(ctx, targets, selected) };
}

interface Prepared {
  target: EngineTargetConfig;
  label: string;
  engine: RunningEngine;
  /** How runtime-bench built the engine's CLI (nerdctl from source), else null. */
  cliBuild: ComponentBuild | null;
  /** The OCI runtime-spec version nerdctl's containerd writes; null for Docker and Podman. */
  specVersion: string | null;
  /** Each runtime with, when it refuses that spec version, the reason (nothing is run with it). */
  runtimes: (RuntimeBinary & { version: string; detail: string; refusal: string | null })[];
}

async function resolveRuntimes(
  target: EngineTargetConfig,
  index: number,
): Promise<(RuntimeBinary & { version: string; detail: string })[]> {
  const out = [];
  for (const [j, name] of target.runtimes.entries()) {
    const binary = await which(name);
    if (!binary)
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(index, `runtimes[${j}]`)}: no OCI runtime "${name}" on PATH`,
        'install it (e.g. apt-get install runc crun) or list only installed runtimes',
      );
    const v = await ociVersion(guessOciKind(name) ?? name, binary);
    out.push({
      name,
      binary,
      version: 'error' in v ? 'unknown' : v.version,
      detail: 'error' in v ? v.error : (v.output.split('\n')[0] ?? ''),
    });
  }
  return out;
}

async function prepareEngineRun(
  ctx: RunContext,
  targets: { target: EngineTargetConfig; index: number }[],
  selected: readonly EngineBenchmark<never>[],
): Promise<PreparedRun> {
  const { config, runId, log } = ctx;
  const runRoot = join(ENGINES_DIR, runId.slice(-8));
  const engines: Prepared[] = [];
  let problems: string[] = [];
  // The firewall before any engine of the run: CNI's shared portmap chains are made by whichever
  // network's first container comes first, after the other networks took their own snapshots, so
  // only a run-wide snapshot sees that they are the run's.
  const firewallBefore = await firewallSnapshot();
  const teardown = async (): Promise<void> => {
    const hadEngines = engines.length > 0;
    for (const e of engines.splice(0)) problems = problems.concat(await e.engine.teardown());
    if (hadEngines) problems = problems.concat(await sweepFirewall(firewallBefore));
    await rm(runRoot, { recursive: true, force: true });
  };
  let imageComponents: Component[] = [];
  try {
    const found = [];
    for (const { target, index } of targets)
      found.push({
        target,
        index,
        bins: await findEngine(
          target.engine,
          field(index, 'engine'),
          undefined,
          target.containerd ? { version: target.containerd, field: field(index, 'containerd') } : undefined,
        ),
        runtimes: await resolveRuntimes(target, index),
      });
    for (const p of await reapAbandoned(ENGINES_DIR, log)) log(`cleanup: ${p}`);
    await mkdir(runRoot, { recursive: true });
    await writeFile(join(runRoot, OWNER_FILE), `${process.pid}\n`);
    const layout = await buildImageLayout(runRoot, { ...config.images, pause: config.images.pause });
    const archive = join(runRoot, 'images.tar');
    try {
      await tarDockerArchive(layout.layoutDir, archive);
      imageComponents = layout.components;
    } finally {
      await layout.dispose();
    }
    const ulimits = parseUlimits(await readFile('/proc/self/limits', 'utf8'));
    for (const { target, index, bins, runtimes } of found) {
      const plan = planEngine({
        engine: target.engine,
        cli: bins.cli,
        daemon: bins.daemon,
        root: join(runRoot, String(index)),
        runId,
        runtimes,
        ulimits,
        path: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
      });
      const engine = await startEngine(plan, archive, log);
      const label = target.name ?? target.engine;
      const cliBuild = await readBuildRecord(bins.cli);
      const specVersion =
        target.engine === 'nerdctl' ? await nerdctlSpecVersion(engine, config.images.bench) : null;
      const checked = [];
      for (const r of runtimes) {
        const message = specVersion ? await runtimeSpecRefusal(r.binary, specVersion, runRoot) : null;
        const refusal = message
          ? specRefusalReason({
              runtime: r,
              specVersion: specVersion!,
              nerdctl: engine.info.version,
              containerd: engine.daemon?.version ?? 'unknown',
              message,
            })
          : null;
        if (refusal) log(`${label}/${r.name}: not measured: ${refusal}`);
        checked.push({ ...r, refusal });
      }
      engines.push({ target, label, engine, cliBuild, specVersion, runtimes: checked });
    }
    await rm(archive, { force: true });
  } catch (error) {
    await teardown();
    throw error;
  }
  const slots: Slot[] = selected.flatMap((b) =>
    engines.flatMap(({ label, engine, runtimes }) =>
      runtimes.map(({ name, refusal }) => {
        const params = b.parameters(config);
        const context: EngineContext = {
          images: config.images,
          signal: ctx.signal,
          callTimeoutSeconds: config.callTimeoutSeconds,
          run: async (image, command, memoryBytes, published) => {
            const network = published ? (await engine.network.ensure()).name : '';
            return engine.cli(
              runArgs(
                engine.plan,
                name,
                image,
                command,
                runId.toLowerCase(),
                memoryBytes,
                published && { ...published, network },
              ),
              published?.timeoutMs ?? config.callTimeoutSeconds * 1000,
            );
          },
          pidOf: async (container) => {
            const r = await engine.cli(
              [...engine.plan.globalArgs, 'inspect', '--format', '{{.State.Pid}}', container],
              config.callTimeoutSeconds * 1000,
            );
            const pid = Number(r.stdout.trim());
            return r.exitCode === 0 && Number.isInteger(pid) && pid > 0 ? pid : null;
          },
          remove: async (container) => {
            await engine.cli(
              [...engine.plan.globalArgs, 'rm', '-f', container],
              config.callTimeoutSeconds * 1000,
            );
          },
        };
        const slot = newSlot(
          b.definition,
          `${label}/${name}`,
          // The target names the engine and the runtime; the parameters are what two targets
          // must share to be compared (docker/runc against podman/runc, or against yesterday's).
          { ...(params as Record<string, unknown>), network: b.network ?? 'none' },
          () => b.iterate(context, params),
        );
        // Refused before measuring: the orchestrator runs no repetition of an unsupported slot.
        if (refusal) slot.accumulator.unsupported = refusal;
        return slot;
      }),
    ),
  );
  const described = engines.map((e) => ({ ...e }));
  return {
    slots,
    signal: ctx.signal,
    async finish() {
      await teardown();
      for (const p of problems) log(`cleanup: ${p}`);
      const targetsOut: Target[] = described.flatMap(({ label, engine, runtimes }) =>
        runtimes.map((r) => ({
          id: `${label}/${r.name}`,
          cri: {
            name: engine.plan.engine,
            version: engine.info.version,
            apiVersion: 'engine',
            endpoint: `${engine.plan.engine}://${engine.plan.root}`,
          },
          handler: r.name,
          oci: { name: guessOciKind(r.name) ?? r.name, version: r.version, path: r.binary },
          transport: 'engine',
          engine: {
            name: engine.plan.engine,
            ...engine.info,
            networkBackend: engine.network.backend() ?? engine.info.networkBackend,
          },
        })),
      );
      const components: Component[] = described.flatMap(({ engine, cliBuild, specVersion, runtimes }) => [
        {
          name: engine.plan.engine,
          role: 'cri',
          version: engine.info.version,
          path: engine.plan.cli,
          // nerdctl writes its containers' spec itself (its containerd client library's version).
          detail: `storage ${engine.info.storageDriver}, cgroups ${engine.info.cgroupManager}, network ${engine.network.backend() ?? engine.info.networkBackend}${specVersion ? `; writes OCI runtime spec ${specVersion}` : ''}`,
          ...(cliBuild ? { build: cliBuild } : {}),
        },
        ...(engine.daemon
          ? [
              {
                name: engine.daemon.name,
                role: 'cri' as const,
                version: engine.daemon.version,
                path: engine.daemon.path,
                detail: `${engine.plan.engine}'s private daemon, root ${engine.plan.root}`,
              },
            ]
          : []),
        ...runtimes.map((r): Component => ({
          name: guessOciKind(r.name) ?? r.name,
          role: 'oci',
          version: r.version,
          path: r.binary,
          detail: r.detail,
        })),
      ]);
      return [
        {
          host: await readHostFingerprint([]),
          components: [...components, ...imageComponents],
          targets: targetsOut,
          benchmarks: selected.map((b) => b.definition),
          slots,
        },
      ];
    },
    close: teardown,
  };
}
