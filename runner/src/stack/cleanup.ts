import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { exec, processAlive, sleep } from '../util/exec.ts';

/** Mount points below `dir` from mountinfo text, deepest first (the order to unmount them in). */
export function mountsBelow(mountinfo: string, dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const points: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const field = line.split(' ')[4];
    if (!field) continue;
    // mountinfo escapes spaces and the like as octal (\040).
    const point = field.replace(/\\([0-7]{3})/g, (_, o: string) =>
      String.fromCharCode(Number.parseInt(o, 8)),
    );
    if (point === dir || point.startsWith(prefix)) points.push(point);
  }
  return [...new Set(points)].sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
}

export async function unmountBelow(dir: string): Promise<string[]> {
  const points = mountsBelow(await readFile('/proc/self/mountinfo', 'utf8'), dir);
  const failed: string[] = [];
  for (const p of points) {
    const r = await exec('umount', [p], { allowFailure: true });
    if (r.exitCode !== 0) {
      const lazy = await exec('umount', ['-l', p], { allowFailure: true });
      if (lazy.exitCode !== 0) failed.push(`${p}: ${lazy.stderr.trim()}`);
    }
  }
  return failed;
}

export interface ProcessInfo {
  pid: number;
  cmdline: string[];
}

/** Runtime processes (and a stack's registry) only: never a shell, test runner or CLI that merely has the path in its arguments. */
const RUNTIME_PROCESS = /^(containerd|crio|runsc|runc|crun|youki|conmon|docker-registry)/;

/** Runtime processes (shims, sandboxes) whose command line mentions any of the needles (our state dir). */
export async function processesMentioning(needles: string[]): Promise<ProcessInfo[]> {
  const out: ProcessInfo[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let raw: string;
    try {
      raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const cmdline = raw.split('\0').filter(Boolean);
    const program = (cmdline[0] ?? '').split('/').pop() ?? '';
    if (!RUNTIME_PROCESS.test(program)) continue;
    if (cmdline.some((arg) => needles.some((n) => arg.includes(n)))) out.push({ pid, cmdline });
  }
  return out;
}

/** SIGTERM, wait up to `graceMs`, then SIGKILL. Resolves true when the process is gone. */
export async function terminate(pid: number, graceMs = 10_000): Promise<boolean> {
  if (!processAlive(pid)) return true;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return !processAlive(pid);
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid) || isZombie(pid)) return true;
    await sleep(50);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  for (let i = 0; i < 40 && processAlive(pid) && !isZombie(pid); i++) await sleep(50);
  return !processAlive(pid) || isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // Field 3 of /proc/<pid>/stat is the state; a zombie is dead and only awaits its parent's wait().
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return / Z /.test(stat.slice(stat.lastIndexOf(')')));
  } catch {
    return false;
  }
}
