import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  parseProcIo,
  parseProcStat,
  parseSchedstat,
  ticksToNs,
  parseProcStatus,
  type ProcCounters,
  type ProcEntry,
} from './attribution.ts';

/** Reads a /proc file, or null when the process is gone (it may exit between listing and reading). */
async function maybe<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

/** Every process's parent, name, command line and PID namespace: the input of runtimeTree. */
export async function readProcSnapshot(proc = '/proc'): Promise<ProcEntry[]> {
  const pids = (await readdir(proc)).filter((n) => /^\d+$/.test(n));
  const entries = await Promise.all(
    pids.map(async (pid): Promise<ProcEntry | null> => {
      const stat = await maybe(() => readFile(join(proc, pid, 'stat'), 'utf8'));
      if (!stat) return null;
      const s = parseProcStat(stat);
      const cmdline = (await maybe(() => readFile(join(proc, pid, 'cmdline'), 'utf8'))) ?? '';
      const pidNs = (await maybe(() => readlink(join(proc, pid, 'ns', 'pid')))) ?? '';
      return { pid: s.pid, ppid: s.ppid, comm: s.comm, cmdline: cmdline.split('\0').filter(Boolean), pidNs };
    }),
  );
  return entries.filter((e): e is ProcEntry => e !== null);
}

/** One process's counters; context switches summed over its threads. Null when it is gone. */
export async function readCounters(pid: number, proc = '/proc'): Promise<ProcCounters | null> {
  const dir = join(proc, String(pid));
  const stat = await maybe(() => readFile(join(dir, 'stat'), 'utf8'));
  const status = await maybe(() => readFile(join(dir, 'status'), 'utf8'));
  if (!stat || !status) return null;
  const s = parseProcStat(stat);
  const io = parseProcIo((await maybe(() => readFile(join(dir, 'io'), 'utf8'))) ?? '');
  let ctxSwitches = 0;
  let threadNs = 0;
  let threadsTimed = true;
  for (const tid of (await maybe(() => readdir(join(dir, 'task')))) ?? []) {
    const t = await maybe(() => readFile(join(dir, 'task', tid, 'status'), 'utf8'));
    if (t) {
      const ts = parseProcStatus(t);
      ctxSwitches += ts.voluntary + ts.nonvoluntary;
    }
    const sched = await maybe(() => readFile(join(dir, 'task', tid, 'schedstat'), 'utf8'));
    if (sched) threadNs += parseSchedstat(sched);
    else threadsTimed = false;
  }
  // Own time in ns from the live threads' schedstat; a thread that already exited is only in the
  // tick-rounded total, so the larger of the two is the better reading. Reaped helpers (the
  // runc/crun the shim waited for) exist only as cutime/cstime ticks: the kernel keeps no finer sum.
  const ownNs = threadsTimed ? Math.max(threadNs, ticksToNs(s.ownTicks)) : ticksToNs(s.ownTicks);
  return {
    cpuNs: ownNs + ticksToNs(s.childTicks),
    peakRssBytes: parseProcStatus(status).vmHwmBytes,
    writeBytes: io.writeBytes,
    writeSyscalls: io.syscw,
    ctxSwitches,
  };
}
