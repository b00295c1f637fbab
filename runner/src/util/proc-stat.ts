// /proc/<pid>/stat, parsed: the one reader of its fields (the overhead attribution's CPU ticks, and
// the start time that tells a live process from a later one that got the same pid).

import { readFile } from 'node:fs/promises';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  /** utime + stime of the process itself (ticks). */
  ownTicks: number;
  /** cutime + cstime: reaped children (ticks), e.g. the `runc create` the shim waited for. */
  childTicks: number;
  /** Start time after boot (ticks): with the pid, identifies a process across snapshots. */
  startTicks: number;
}

/** /proc/<pid>/stat. The comm field is in parentheses and may itself contain spaces or ")". */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); utime is field 14 → rest[11]
  const f = (field: number): number => Number(rest[field - 3]);
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: f(4),
    ownTicks: f(14) + f(15),
    childTicks: f(16) + f(17),
    startTicks: f(22),
  };
}

/**
 * The start time (ticks after boot) of a live process, or null when `pid` is gone or a zombie
 * (dead, only awaiting its parent's wait()). With the pid it names one process: a later process
 * that got the same pid has another start time.
 */
export async function liveProcessStart(pid: number): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const stat = parseProcStat(text);
  return stat.state === 'Z' || stat.state === 'X' ? null : stat.startTicks;
}
