// The side of `doctor` that touches the host: reads of /proc and /sys, PATH look-ups, version
// commands and statfs, gathered into the plain snapshot doctor/checks.ts judges.
import { access, constants, readdir, readFile, statfs } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { exec } from '../util/exec.ts';
import { NEEDED_BINARIES, versionOf, type BinaryProbe, type DiskProbe, type HostSnapshot } from './checks.ts';

/** Where images, stack state and builds go: the directories whose free space matters. */
export const WATCHED_DIRS: readonly { path: string; purpose: string }[] = [
  { path: '/var/lib/runtime-bench', purpose: 'stack state and images' },
  { path: '/opt/runtime-bench', purpose: 'installs and builds' },
];

const CNI_DIRS = ['/usr/lib/cni', '/opt/cni/bin'];

const readText = (path: string): Promise<string> => readFile(path, 'utf8').catch(() => '');

/** The first executable `name` on PATH (and the sbin directories a root shell has), or null. */
export async function which(name: string, path = process.env.PATH ?? ''): Promise<string | null> {
  const dirs = [...path.split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean);
  for (const dir of new Set(dirs)) {
    const candidate = join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return null;
}

async function probeBinary(name: string, versionArgs: string[]): Promise<BinaryProbe> {
  const path = await which(name);
  if (!path) return { path: null, version: null };
  const r = await exec(path, versionArgs, { allowFailure: true, timeoutMs: 5000 }).catch(() => null);
  const output = r ? `${r.stdout}\n${r.stderr}`.trim() : '';
  return { path, version: output ? versionOf(output) : null };
}

/** Free bytes of the file system that holds `path` (its nearest existing ancestor), or null. */
async function availableBytes(path: string): Promise<number | null> {
  for (let p = path; ; p = dirname(p)) {
    const s = await statfs(p).catch(() => null);
    if (s) return s.bavail * s.bsize;
    if (p === dirname(p)) return null;
  }
}

async function governors(): Promise<string[]> {
  const cpus = (await readdir('/sys/devices/system/cpu').catch(() => [] as string[])).filter((d) =>
    /^cpu\d+$/.test(d),
  );
  const out: string[] = [];
  for (const cpu of cpus) {
    const g = (await readText(`/sys/devices/system/cpu/${cpu}/cpufreq/scaling_governor`)).trim();
    if (g) out.push(g);
  }
  return out;
}

async function processes(): Promise<HostSnapshot['processes']> {
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((d) => /^\d+$/.test(d));
  const out: HostSnapshot['processes'] = [];
  for (const pid of pids) {
    const name = (await readText(`/proc/${pid}/comm`)).trim();
    if (name !== 'containerd' && name !== 'crio') continue;
    const cmdline = (await readText(`/proc/${pid}/cmdline`)).split('\0').join(' ').trim();
    out.push({ pid: Number(pid), name, cmdline });
  }
  return out;
}

async function cniPlugins(): Promise<HostSnapshot['cniPlugins']> {
  for (const dir of CNI_DIRS) {
    const files = await readdir(dir).catch(() => null);
    if (files) return { dir, files };
  }
  return null;
}

/** Takes the snapshot of this host (reads only; starts nothing but `<binary> --version`). */
export async function probeHost(): Promise<HostSnapshot> {
  const [kernel, mountinfo, loadavg, govs, procs, cni, binaryEntries, disks] = await Promise.all([
    readText('/proc/sys/kernel/osrelease'),
    readText('/proc/self/mountinfo'),
    readText('/proc/loadavg'),
    governors(),
    processes(),
    cniPlugins(),
    Promise.all(
      NEEDED_BINARIES.map(async (b) => [b.name, await probeBinary(b.name, b.versionArgs)] as const),
    ),
    Promise.all(
      WATCHED_DIRS.map(async (d): Promise<DiskProbe> => ({
        ...d,
        availableBytes: await availableBytes(d.path),
      })),
    ),
  ]);
  return {
    kernel: kernel.trim(),
    mountinfo,
    cores: availableParallelism(),
    loadavg,
    governors: govs,
    binaries: Object.fromEntries(binaryEntries),
    cniPlugins: cni,
    disks,
    processes: procs,
    uid: process.getuid?.() ?? -1,
  };
}
