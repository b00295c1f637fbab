// `runtime-bench doctor`: is this host ready, and quiet enough, to measure on? Pure checks over a
// snapshot of the host (doctor/probe.ts takes it), each finding with a level and the fix.
import { parseCgroupLayout } from '../host/parse.ts';

export type Level = 'ok' | 'warn' | 'fail';

export interface Finding {
  check: string;
  level: Level;
  detail: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

/** A binary looked up on PATH: where, and the first line of its version output. */
export interface BinaryProbe {
  path: string | null;
  version: string | null;
}

/** A directory the tool writes to, and the free space of the file system holding it. */
export interface DiskProbe {
  path: string;
  purpose: string;
  /** null when statfs failed on every ancestor. */
  availableBytes: number | null;
}

/** A running process: its pid, name (comm) and command line. */
export interface ProcessProbe {
  pid: number;
  name: string;
  cmdline: string;
}

/** What doctor knows of the host: plain data, so every check is tested on a written snapshot. */
export interface HostSnapshot {
  kernel: string;
  /** /proc/self/mountinfo */
  mountinfo: string;
  cores: number;
  /** /proc/loadavg */
  loadavg: string;
  /** scaling_governor of each CPU that exposes one ([] on hosts without cpufreq, e.g. most VMs). */
  governors: string[];
  binaries: Record<string, BinaryProbe>;
  /** Files of the CNI plugins directory (/usr/lib/cni, else /opt/cni/bin); null when neither exists. */
  cniPlugins: { dir: string; files: string[] } | null;
  disks: DiskProbe[];
  processes: ProcessProbe[];
  uid: number;
}

/** A binary doctor looks for: why it is needed, and whether a run can do without it. */
export interface NeededBinary {
  name: string;
  /** The Debian package scripts/setup.sh installs it from, if it does. */
  debian?: string;
  why: string;
  /** fail when absent, or warn (some benchmarks or stacks need it), or ok (optional extras). */
  absent: Level;
  versionArgs: string[];
}

/** What scripts/setup.sh installs, and the optional runtimes a config may name. */
export const NEEDED_BINARIES: readonly NeededBinary[] = [
  {
    name: 'containerd',
    debian: 'containerd',
    why: 'the default CRI runtime of a stack',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'runc',
    debian: 'runc',
    why: 'the default OCI runtime',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'crun',
    debian: 'crun',
    why: 'the second OCI runtime of the quick suite',
    absent: 'warn',
    versionArgs: ['--version'],
  },
  {
    name: 'sysbench',
    debian: 'sysbench',
    why: 'the performance.* benchmarks and their images',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'busybox',
    debian: 'busybox-static',
    why: 'the benchmark images',
    absent: 'fail',
    versionArgs: ['--help'],
  },
  {
    name: 'catatonit',
    debian: 'catatonit',
    why: 'the benchmark images (init)',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'patchelf',
    debian: 'patchelf',
    why: 'the benchmark images',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'umoci',
    debian: 'umoci',
    why: 'the benchmark images (OCI layout)',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'skopeo',
    debian: 'skopeo',
    why: 'images into a CRI-O stack, and the image.* benchmarks',
    absent: 'warn',
    versionArgs: ['--version'],
  },
  {
    name: 'docker-registry',
    debian: 'docker-registry',
    why: "the image.* benchmarks' loopback registry",
    absent: 'warn',
    versionArgs: ['--version'],
  },
  { name: 'conmon', debian: 'conmon', why: 'CRI-O stacks', absent: 'warn', versionArgs: ['--version'] },
  {
    name: 'ip',
    debian: 'iproute2',
    why: 'network namespaces of the network.* benchmarks',
    absent: 'fail',
    versionArgs: ['-V'],
  },
  {
    name: 'nsenter',
    debian: 'util-linux',
    why: 'entering the stack namespaces',
    absent: 'fail',
    versionArgs: ['--version'],
  },
  {
    name: 'git',
    debian: 'git',
    why: 'provenance (the commit of the tool) and publishing',
    absent: 'warn',
    versionArgs: ['--version'],
  },
  {
    name: 'crio',
    why: 'CRI-O stacks (a CRI-O release, or ../shared/tools)',
    absent: 'ok',
    versionArgs: ['--version'],
  },
  {
    name: 'crictl',
    why: 'the crictl client (the gRPC client is the default)',
    absent: 'ok',
    versionArgs: ['--version'],
  },
  { name: 'runsc', why: 'gVisor targets', absent: 'ok', versionArgs: ['--version'] },
  { name: 'youki', why: 'youki targets', absent: 'ok', versionArgs: ['--version'] },
];

/** The CNI plugins a stack's pod network needs. */
export const NEEDED_CNI_PLUGINS = ['bridge', 'host-local', 'loopback', 'portmap'] as const;

const GiB = 1024 ** 3;
/** Free space below which images and builds fail to land, and below which they soon will. */
export const DISK_FAIL_BYTES = 2 * GiB;
export const DISK_WARN_BYTES = 10 * GiB;
/** 1-minute load per core above which other work visibly widens the samples. */
export const LOAD_WARN_PER_CORE = 0.25;

const SETUP_FIX = 'run `bash scripts/setup.sh` as root';

/** A version as its tool prints it: the first thing that looks like one on the first line. */
export function versionOf(output: string): string | null {
  const first = output.split('\n').find((l) => l.trim() !== '') ?? '';
  return /v?(\d+\.\d+(?:\.\d+)?(?:[-~+][\w.~+-]*)?)/.exec(first)?.[1] ?? null;
}

export function checkCgroups(s: HostSnapshot): Finding {
  const layout = parseCgroupLayout(s.mountinfo);
  if (layout.mode === 'v2')
    return { check: 'cgroups', level: 'ok', detail: `v2 (unified) at ${layout.v2Mount ?? '?'}` };
  if (layout.mode === 'hybrid')
    return {
      check: 'cgroups',
      level: 'warn',
      detail: `hybrid: v1 controllers (${layout.v1Controllers.join(', ')}) beside cgroup2 at ${layout.v2Mount}; crun needs them bound to v2`,
      fix: 'use `stack up --fix-host` (binds the v2-only controllers), or boot with systemd.unified_cgroup_hierarchy=1',
    };
  return {
    check: 'cgroups',
    level: 'warn',
    detail: `v1 (${layout.v1Controllers.join(', ') || 'no controllers'}): limits.* and overhead.* measure v1 accounting, not comparable with v2 hosts`,
    fix: 'boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2) for results comparable with other hosts',
  };
}

export function checkKernel(s: HostSnapshot): Finding {
  const [major = 0, minor = 0] = s.kernel.split(/[.-]/).map(Number);
  if (major < 5 || (major === 5 && minor < 10))
    return {
      check: 'kernel',
      level: 'warn',
      detail: `${s.kernel}: older than 5.10, the oldest kernel runtime-bench is run on`,
      fix: 'use a Debian 12 (6.1) or newer kernel',
    };
  return { check: 'kernel', level: 'ok', detail: s.kernel };
}

export function checkBinaries(s: HostSnapshot, needed = NEEDED_BINARIES): Finding[] {
  return needed.map((b) => {
    const probe = s.binaries[b.name];
    if (!probe?.path)
      return {
        check: b.name,
        level: b.absent,
        detail:
          b.absent === 'ok'
            ? `not installed; optional, for ${b.why}`
            : `not found on PATH; needed for ${b.why}`,
        ...(b.absent === 'ok'
          ? {}
          : { fix: b.debian ? `${SETUP_FIX}, or apt-get install ${b.debian}` : SETUP_FIX }),
      };
    if (probe.version === null)
      return {
        check: b.name,
        level: 'warn',
        detail: `${probe.path} prints no version`,
        fix: `check that ${probe.path} runs: ${[b.name, ...b.versionArgs].join(' ')}`,
      };
    return { check: b.name, level: 'ok', detail: `${probe.version} (${probe.path})` };
  });
}

export function checkCniPlugins(s: HostSnapshot): Finding {
  const fix = `${SETUP_FIX}, or apt-get install containernetworking-plugins`;
  if (!s.cniPlugins)
    return {
      check: 'CNI plugins',
      level: 'fail',
      detail: 'neither /usr/lib/cni nor /opt/cni/bin exists',
      fix,
    };
  const missing = NEEDED_CNI_PLUGINS.filter((p) => !s.cniPlugins!.files.includes(p));
  if (missing.length > 0)
    return {
      check: 'CNI plugins',
      level: 'fail',
      detail: `${s.cniPlugins.dir} lacks ${missing.join(', ')}`,
      fix,
    };
  return {
    check: 'CNI plugins',
    level: 'ok',
    detail: `${NEEDED_CNI_PLUGINS.join(', ')} in ${s.cniPlugins.dir}`,
  };
}

const gib = (bytes: number): string => `${(bytes / GiB).toFixed(1)} GiB`;

export function checkDisks(s: HostSnapshot): Finding[] {
  return s.disks.map((d) => {
    const check = `disk ${d.path}`;
    if (d.availableBytes === null)
      return {
        check,
        level: 'warn',
        detail: `free space unknown (${d.purpose})`,
        fix: `check \`df -h ${d.path}\``,
      };
    const detail = `${gib(d.availableBytes)} free (${d.purpose})`;
    if (d.availableBytes < DISK_FAIL_BYTES)
      return {
        check,
        level: 'fail',
        detail,
        fix: `free at least ${gib(DISK_FAIL_BYTES)} there (images, builds)`,
      };
    if (d.availableBytes < DISK_WARN_BYTES)
      return { check, level: 'warn', detail, fix: `free ${gib(DISK_WARN_BYTES)} for sweeps and builds` };
    return { check, level: 'ok', detail };
  });
}

/** A containerd or CRI-O that is not one of our stacks (theirs run from /var/lib/runtime-bench). */
export function checkOtherRuntimes(s: HostSnapshot): Finding {
  const others = s.processes.filter(
    (p) => (p.name === 'containerd' || p.name === 'crio') && !p.cmdline.includes('/runtime-bench/'),
  );
  if (others.length === 0)
    return { check: 'other runtimes', level: 'ok', detail: 'no containerd or CRI-O besides our stacks' };
  return {
    check: 'other runtimes',
    level: 'warn',
    detail: `${others.map((p) => `${p.name} (pid ${p.pid})`).join(', ')} runs beside our stacks: its background work (GC, image pulls, its containers) is noise in every sample`,
    fix: `stop it while measuring: systemctl disable --now ${[...new Set(others.map((p) => p.name))].join(' ')} (our stacks never use it)`,
  };
}

export function checkGovernor(s: HostSnapshot): Finding {
  if (s.governors.length === 0)
    return {
      check: 'CPU frequency',
      level: 'ok',
      detail: 'no frequency scaling exposed (a VM, or fixed clocks)',
    };
  const counts = new Map<string, number>();
  for (const g of s.governors) counts.set(g, (counts.get(g) ?? 0) + 1);
  const summary = [...counts].map(([g, n]) => `${g} ×${n}`).join(', ');
  if (counts.size === 1 && counts.has('performance'))
    return { check: 'CPU frequency', level: 'ok', detail: `governor ${summary}` };
  return {
    check: 'CPU frequency',
    level: 'warn',
    detail: `governor ${summary}: the clock follows the load, so samples depend on what ran just before`,
    fix: 'cpupower frequency-set -g performance (or write performance to /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)',
  };
}

export function checkLoad(s: HostSnapshot): Finding {
  const load1 = Number(s.loadavg.split(/\s+/)[0]);
  const perCore = load1 / Math.max(1, s.cores);
  const detail = `load ${load1.toFixed(2)} on ${s.cores} core(s) (${perCore.toFixed(2)} per core, 1 min)`;
  if (!Number.isFinite(load1)) return { check: 'load', level: 'warn', detail: 'load average unreadable' };
  if (perCore > LOAD_WARN_PER_CORE)
    return {
      check: 'load',
      level: 'warn',
      detail: `${detail}: other work widens the samples and can shift medians`,
      fix: 'measure on a quiet host: stop other jobs, or run when `uptime` shows a load well below the cores',
    };
  return { check: 'load', level: 'ok', detail };
}

export function checkRoot(s: HostSnapshot): Finding {
  if (s.uid === 0) return { check: 'privileges', level: 'ok', detail: 'root' };
  return {
    check: 'privileges',
    level: 'warn',
    detail: `uid ${s.uid}: stack up, install and run against a local stack need root`,
    fix: 'run those as root (sudo)',
  };
}

/** Every finding about the host, in the order they are printed. */
export function diagnose(s: HostSnapshot): Finding[] {
  return [
    checkKernel(s),
    checkCgroups(s),
    checkRoot(s),
    ...checkBinaries(s),
    checkCniPlugins(s),
    ...checkDisks(s),
    checkOtherRuntimes(s),
    checkGovernor(s),
    checkLoad(s),
  ];
}

/** Ready when nothing failed (warnings say what makes results noisier or narrower). */
export function hostReady(findings: readonly Finding[]): boolean {
  return findings.every((f) => f.level !== 'fail');
}
