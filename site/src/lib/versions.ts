/**
 * Orders runtime version strings the way a reader expects: semver precedence for "1.7.13" and
 * "v2.0.0-rc.1", numeric segments compared as numbers for date-like versions such as gVisor's
 * "20240212.0", and a stable text order as the last resort. Versions come from the runtimes
 * themselves, so the comparator must accept anything rather than throw.
 */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  const len = Math.max(pa.core.length, pb.core.length);
  for (let i = 0; i < len; i++) {
    const x = pa.core[i] ?? 0;
    const y = pb.core[i] ?? 0;
    if (x !== y) return x - y;
  }
  // A pre-release sorts before its release (semver §11.3).
  if (pa.pre.length === 0 && pb.pre.length > 0) return 1;
  if (pa.pre.length > 0 && pb.pre.length === 0) return -1;
  const plen = Math.max(pa.pre.length, pb.pre.length);
  for (let i = 0; i < plen; i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

interface ParsedVersion {
  core: number[];
  pre: string[];
}

function parseVersion(version: string): ParsedVersion {
  // "runc version 1.1.5" or "v1.7.2": keep the first thing that looks like a version.
  const m = /(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?/.exec(version);
  if (!m) return { core: [], pre: [version] };
  return { core: m[1]!.split('.').map(Number), pre: m[2] ? m[2].split('.') : [] };
}

/** A sorted copy without duplicates. */
export function sortVersions(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort(compareVersions);
}
