// Pure planning of an engine target (Docker, Podman): every path under the run's private root,
// the explicit environment, the daemon's arguments, the arguments of one `run`, and the parsing
// of what the engine says about itself. engine/engine.ts executes the plan.
import { join } from 'node:path';
import type { EngineName } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';
import type { EnginePlan, RuntimeBinary, Ulimits } from './engine-plan.ts';
import { planNerdctl } from './nerdctl-plan.ts';

/** Where each engine comes from on Debian (the skip reason and the fix name it). */
export const ENGINE_PACKAGES: Record<EngineName, string> = {
  docker: 'apt-get install docker.io',
  podman: 'apt-get install podman',
  nerdctl:
    'runtime-bench install --source go nerdctl@2.1.2 containerd@1.7.35 (from the Go module proxy; nerdctl 2.1.3 only from a checkout: --source git --git-dir <checkout> nerdctl@v2.1.3), or apt-get install containerd for the containerd',
};

/** The binaries an engine needs: its CLI, and for Docker its daemon. */
export const ENGINE_BINARIES: Record<EngineName, { cli: string; daemon: string | null }> = {
  docker: { cli: 'docker', daemon: 'dockerd' },
  podman: { cli: 'podman', daemon: null },
  nerdctl: { cli: 'nerdctl', daemon: 'containerd' },
};

/**
 * Podman 4 asks the OCI runtime, as root, for RLIMIT_NOFILE 1048576 and RLIMIT_NPROC 4194304
 * unless told otherwise, which a host without CAP_SYS_RESOURCE refuses; and conmon runs with an
 * RLIMIT_NPROC hard limit of 32768. Containers get the caller's NOFILE and at most that NPROC.
 */
const PODMAN_NPROC_CEILING = 32768;

/** The caller's hard limits from /proc/self/limits text. */
export function parseUlimits(limits: string): Ulimits {
  const hard = (label: string): number => {
    const m = new RegExp(`^${label}\\s+\\S+\\s+(\\S+)`, 'm').exec(limits);
    const v = m ? Number(m[1]) : NaN;
    return Number.isFinite(v) ? v : 1024;
  };
  return { nofile: hard('Max open files'), nproc: Math.min(hard('Max processes'), PODMAN_NPROC_CEILING) };
}

/** The cgroup (in every hierarchy) below which one run's containers of `engine` go. */
export function engineCgroupName(runKey: string, engine: EngineName): string {
  return `rb-engine-${runKey}-${engine}`;
}

export function planEngine(opts: {
  engine: EngineName;
  cli: string;
  daemon: string | null;
  root: string;
  runId: string;
  runtimes: RuntimeBinary[];
  ulimits: Ulimits;
  path: string;
}): EnginePlan {
  const { engine, root } = opts;
  const runKey = opts.runId.slice(-8);
  const cgroupName = engineCgroupName(runKey, engine);
  const base = {
    engine,
    cli: opts.cli,
    root,
    cgroupName,
    runtimes: opts.runtimes,
    ulimits: opts.ulimits,
    leftovers: [],
    versionArgs: null,
    networkConfigDir: engine === 'podman' ? join(root, 'net') : null,
  };
  if (engine === 'docker') {
    if (!opts.daemon) throw new Error('planEngine: docker needs dockerd');
    const socket = join(root, 'docker.sock');
    const pidfile = join(root, 'docker.pid');
    return {
      ...base,
      infoArgs: ['info', '--format', '{{json .}}'],
      globalArgs: ['--host', `unix://${socket}`],
      env: { PATH: opts.path, HOME: root, DOCKER_CONFIG: join(root, 'cli') },
      dirs: [join(root, 'cli'), join(root, 'data'), join(root, 'exec')],
      // An empty daemon.json: nothing from /etc/docker reaches the private daemon.
      files: [{ path: join(root, 'daemon.json'), content: '{}\n' }],
      daemon: {
        binary: opts.daemon,
        pidfile,
        log: join(root, 'dockerd.log'),
        args: [
          '--config-file',
          join(root, 'daemon.json'),
          '--data-root',
          join(root, 'data'),
          '--exec-root',
          join(root, 'exec'),
          '--pidfile',
          pidfile,
          '--host',
          `unix://${socket}`,
          // No default bridge and no iptables rules: the runs use --network none, except
          // engine.network.throughput's, on a bridge network of the run's own (network.ts) whose
          // published port docker-proxy serves; nothing is left on the host.
          '--bridge=none',
          '--iptables=false',
          '--ip6tables=false',
          // dockerd sets the host-wide net.ipv4.ip_forward to 1 unless told not to.
          '--ip-forward=false',
          '--cgroup-parent',
          `/${cgroupName}`,
          // runc is Docker's built-in runtime name (found on PATH); the others are added by path.
          ...opts.runtimes
            .filter((r) => r.name !== 'runc')
            .flatMap((r) => ['--add-runtime', `${r.name}=${r.binary}`]),
        ],
      },
    };
  }
  if (engine === 'podman') {
    const storage = join(root, 'storage');
    const run = join(root, 'run');
    const toml = (v: string): string => JSON.stringify(v);
    return {
      ...base,
      infoArgs: ['info', '--format', 'json'],
      globalArgs: [
        '--root',
        storage,
        '--runroot',
        run,
        '--tmpdir',
        join(root, 'tmp'),
        '--cgroup-manager',
        'cgroupfs',
        '--events-backend',
        'none',
      ],
      // Private configuration files: nothing from /etc/containers or ~/.config reaches the run.
      env: {
        PATH: opts.path,
        HOME: root,
        CONTAINERS_CONF: join(root, 'containers.conf'),
        CONTAINERS_STORAGE_CONF: join(root, 'storage.conf'),
        CONTAINERS_REGISTRIES_CONF: join(root, 'registries.conf'),
        XDG_RUNTIME_DIR: run,
        XDG_CONFIG_HOME: join(root, 'config'),
      },
      dirs: [storage, run, join(root, 'tmp'), join(root, 'config'), join(root, 'net')],
      files: [
        {
          path: join(root, 'storage.conf'),
          content: `[storage]\ndriver = "overlay"\ngraphroot = ${toml(storage)}\nrunroot = ${toml(run)}\n`,
        },
        {
          path: join(root, 'containers.conf'),
          content: [
            '[engine]',
            'cgroup_manager = "cgroupfs"',
            'events_logger = "none"',
            '[engine.runtimes]',
            ...opts.runtimes.map((r) => `${r.name} = [${toml(r.binary)}]`),
            // Networks (engine.network.throughput's) are defined here, never in /etc/cni/net.d.
            '[network]',
            `network_config_dir = ${toml(join(root, 'net'))}`,
            '',
          ].join('\n'),
        },
        { path: join(root, 'registries.conf'), content: 'unqualified-search-registries = []\n' },
      ],
      daemon: null,
    };
  }
  if (!opts.daemon) throw new Error('planEngine: nerdctl needs containerd');
  return planNerdctl({ ...opts, daemon: opts.daemon, runKey, cgroupName });
}

/** A container on the engine's private network with one port published on the host's loopback. */
export interface PublishedRun {
  network: string;
  /** The container's name, so the benchmark can find its process and remove it. */
  name: string;
  hostPort: number;
  containerPort: number;
}

/**
 * The CLI arguments of one `run --rm` of `command` in `image` under `runtime`, no network unless
 * `published` puts it on the private network with a port published on 127.0.0.1 only;
 * `memoryBytes` sets the container's memory limit (`--memory`).
 */
export function runArgs(
  plan: EnginePlan,
  runtime: string,
  image: string,
  command: readonly string[],
  runLabel: string,
  memoryBytes?: number,
  published?: PublishedRun,
): string[] {
  // nerdctl takes a runc-compatible binary by path (containerd-shim-runc-v2 runs it as BinaryName).
  const runtimeArg =
    plan.engine === 'nerdctl' ? (plan.runtimes.find((r) => r.name === runtime)?.binary ?? runtime) : runtime;
  const common = [
    'run',
    '--rm',
    '--runtime',
    runtimeArg,
    ...(published
      ? [
          '--network',
          published.network,
          '--name',
          published.name,
          '--publish',
          `127.0.0.1:${published.hostPort}:${published.containerPort}`,
        ]
      : ['--network', 'none']),
    '--label',
    `runtime-bench.run=${runLabel}`,
  ];
  const podman =
    plan.engine === 'podman'
      ? [
          '--ulimit',
          `nofile=${plan.ulimits.nofile}:${plan.ulimits.nofile}`,
          '--ulimit',
          `nproc=${plan.ulimits.nproc}:${plan.ulimits.nproc}`,
        ]
      : [];
  // Docker's daemon puts every container below the run's cgroup; the CLI-only engines are told per run.
  const parent = plan.engine === 'docker' ? [] : ['--cgroup-parent', `/${plan.cgroupName}`];
  const memory = memoryBytes === undefined ? [] : ['--memory', `${memoryBytes}b`];
  return [...plan.globalArgs, ...common, ...podman, ...parent, ...memory, image, ...command];
}

/** What a result records about the engine. */
export interface EngineInfo {
  version: string;
  storageDriver: string;
  cgroupManager: string;
  networkBackend: string;
}

/** nerdctl's private containerd, as `nerdctl version` reports it (a component of the result). */
export interface EngineDaemon {
  name: string;
  version: string;
}

const text = (v: unknown): string => (typeof v === 'string' && v.length > 0 ? v : 'unknown');

/**
 * An engine's JSON answer as an object: anything else (a warning line first, `null`, a list) is
 * an error naming the command and the start of what it printed, not a TypeError further on.
 */
function jsonObject(engine: EngineName, what: string, answer: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${engine} ${what} printed no JSON object (${JSON.stringify(answer.trim().slice(0, 120))})`,
      `run the engine's ${what} by hand to see what it says; a version of ${engine} this tool does not know may print another format`,
    );
  return value as Record<string, unknown>;
}

/**
 * `docker info --format '{{json .}}'`, `podman info --format json` or `nerdctl info --format
 * '{{json .}}'` (with `nerdctl version --format '{{json .}}'`), as EngineInfo.
 */
export function parseEngineInfo(engine: EngineName, json: string, versionJson?: string): EngineInfo {
  const info = jsonObject(engine, 'info', json);
  if (engine === 'nerdctl') {
    const client = (versionJson ? jsonObject(engine, 'version', versionJson) : {}).Client as
      { Version?: unknown } | undefined;
    return {
      version: text(typeof client?.Version === 'string' ? client.Version.replace(/^v/, '') : undefined),
      storageDriver: text(info.Driver),
      cgroupManager: text(info.CgroupDriver),
      // No network of nerdctl's is created: the runs use --network none.
      networkBackend: 'none',
    };
  }
  if (engine === 'docker')
    return {
      version: text(info.ServerVersion),
      storageDriver: text(info.Driver),
      cgroupManager: text(info.CgroupDriver),
      // The private daemon has no bridge (--bridge=none) and the runs use --network none.
      networkBackend: 'none',
    };
  const field = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  const host = field(info.host);
  const store = field(info.store);
  const version = field(info.version);
  return {
    version: text(version.Version),
    storageDriver: text(store.graphDriverName),
    cgroupManager: text(host.cgroupManager),
    networkBackend: text(host.networkBackend),
  };
}

/** The containerd under nerdctl, from `nerdctl version --format '{{json .}}'`; null if it names none. */
export function parseEngineDaemon(versionJson: string): EngineDaemon | null {
  const v = jsonObject('nerdctl', 'version', versionJson) as {
    Server?: { Components?: unknown };
  };
  const components = Array.isArray(v.Server?.Components) ? (v.Server.Components as unknown[]) : [];
  const c = components.find(
    (x): x is { Name: unknown; Version: unknown } =>
      typeof x === 'object' && x !== null && (x as { Name?: unknown }).Name === 'containerd',
  );
  return c && typeof c.Version === 'string'
    ? { name: 'containerd', version: c.Version.replace(/^v/, '') }
    : null;
}
