// Semantic-version order for release lists and recipe ranges: pure. Pre-releases sort before their
// release (1.5.0-rc.2 < 1.5.0), Go pseudo-versions (v1.2.1-0.20240101…-abcdef) sort just after the
// release they build on, as Go orders them; build metadata (+dev) is ignored.

interface Parsed {
  core: number[];
  pre: string[];
}

function parse(text: string): Parsed | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)], pre: m[4] ? m[4].split('.') : [] };
}

/** True for `1.2.0`, `v1.5.0-rc.2`, `1.3.0-rc.1+dev`. */
export function isSemver(text: string): boolean {
  return parse(text) !== null;
}

function comparePre(a: string[], b: string[]): number {
  // A release sorts after every pre-release of it.
  if (a.length === 0 || b.length === 0) return (a.length === 0 ? 1 : 0) - (b.length === 0 ? 1 : 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d;
    } else if (nx !== ny) return nx ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Sort comparator of semantic versions; throws RangeError naming a text that is not one. */
export function compareSemver(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (!pa) throw new RangeError(`"${a}" is not a semantic version`);
  if (!pb) throw new RangeError(`"${b}" is not a semantic version`);
  for (let i = 0; i < 3; i++) {
    const d = pa.core[i]! - pb.core[i]!;
    if (d !== 0) return d;
  }
  return comparePre(pa.pre, pb.pre);
}

/** True when `version` lies in [since, before): either bound may be absent. */
export function inRange(version: string, range: { since?: string; before?: string }): boolean {
  if (range.since !== undefined && compareSemver(version, range.since) < 0) return false;
  if (range.before !== undefined && compareSemver(version, range.before) >= 0) return false;
  return true;
}
