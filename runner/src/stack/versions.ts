// Pure parsing of the version lines that runtimes print, and the compatibility rules we know of.

/** The first x.y.z in a version output ("containerd github.com/… 1.6.20~ds1 …", "runc version 1.1.5+ds1"). */
export function parseSemver(text: string): string | null {
  const m = /(?:^|[^\w.])v?(\d+\.\d+(?:\.\d+)?)(?![\d.]*\d)/.exec(text);
  return m ? m[1]! : null;
}

/** Version of an OCI runtime from its `--version` output; runsc prints a release date, not semver. */
export function parseOciVersion(kind: string, text: string): string | null {
  const firstLine = text.trim().split('\n')[0] ?? '';
  if (kind === 'runsc') {
    const m = /runsc version (\S+)/.exec(text);
    return m ? m[1]! : null;
  }
  return parseSemver(firstLine);
}

/**
 * The module version Go embeds in a binary's build info (`mod\tgvisor.dev/gvisor\tv0.0.0-…`).
 * runsc built with `go install` reports "VERSION_MISSING"; its module version is the real one.
 */
export function goModuleVersion(binary: Buffer, module: string): string | null {
  const text = binary.toString('latin1');
  const escaped = module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:^|\\n)mod\\t${escaped}\\t(v[^\\t\\n]+)`).exec(text);
  return m ? m[1]! : null;
}

/** What a runtime that prints no version we can read is recorded as (its raw output goes beside it). */
export const UNKNOWN_VERSION = 'unknown';

/** What of a `--version` output is kept (in the stack state and every result's provenance). */
export const VERSION_OUTPUT_MAX_CHARS = 2_000;

/** One `<runtime> --version` run, as the executor saw it. */
export interface VersionRun {
  exitCode: number;
  /** stdout then stderr, trimmed. */
  output: string;
  timedOut: boolean;
  timeoutMs: number;
}

/**
 * What a `--version` run says about an OCI runtime. A runtime that answers (exit 0) but names no
 * version we can parse (runc built with plain `go install`: "runc version unknown") still works:
 * its version is `unknown` and its raw output the provenance. One that hangs or fails to run is
 * unusable, with the reason. The output is cut to its first VERSION_OUTPUT_MAX_CHARS characters.
 */
export function interpretOciVersion(
  kind: string,
  binary: string,
  run: VersionRun,
): { version: string; known: boolean; output: string } | { error: string } {
  const output = run.output.slice(0, VERSION_OUTPUT_MAX_CHARS);
  const firstLine = output.split('\n')[0] ?? '';
  if (run.timedOut)
    return { error: `${binary} --version printed no version within ${run.timeoutMs / 1000} s (killed)` };
  if (run.exitCode !== 0)
    return { error: `${binary} --version failed (exit ${run.exitCode})${firstLine ? `: ${firstLine}` : ''}` };
  const version = parseOciVersion(kind, output);
  return version ? { version, known: true, output } : { version: UNKNOWN_VERSION, known: false, output };
}

/** Compares dotted numeric versions: negative, zero or positive like a sort comparator. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** containerd 2.x reads config version 3; 1.6 and 1.7 read version 2. */
export function containerdConfigVersion(containerdVersion: string): 2 | 3 {
  return compareVersions(containerdVersion, '2.0.0') >= 0 ? 3 : 2;
}

/**
 * The CRI CNI option naming the plugin directory in config version 3: 2.0 reads only `bin_dir`
 * (a 2.0 given `bin_dirs` looks in /opt/cni/bin), 2.1 added `bin_dirs` and deprecated `bin_dir`,
 * which later releases dropped (internal/cri/config/config.go of 2.0.14, 2.1.9 and 2.4.2).
 */
export function containerdCniBinKey(containerdVersion: string): 'bin_dir' | 'bin_dirs' {
  return compareVersions(containerdVersion, '2.1.0') >= 0 ? 'bin_dirs' : 'bin_dir';
}

/**
 * Known combinations that cannot work, with the reason (verified on this kind of host, see
 * shared/docs/stack.md): crun before 1.9 only speaks OCI runtime spec 1.0, which containerd 1.7+
 * no longer produces ("unknown version specified").
 */
export function incompatibility(
  containerdVersion: string,
  kind: string,
  ociVersion: string | null,
): string | null {
  if (
    kind === 'crun' &&
    ociVersion &&
    compareVersions(ociVersion, '1.9') < 0 &&
    compareVersions(containerdVersion, '1.7') >= 0
  ) {
    return `crun ${ociVersion} only supports OCI runtime spec 1.0.x, containerd ${containerdVersion} needs a newer crun ("unknown version specified")`;
  }
  return null;
}

/**
 * CRI-O writes OCI runtime spec 1.3.0 (1.36; 1.34 already 1.2+): crun before 1.9 refuses it
 * ("unknown version specified"), crun 1.9 and later work (verified with 1.21 and 1.28).
 */
export function crioIncompatibility(
  crioVersion: string,
  kind: string,
  ociVersion: string | null,
): string | null {
  if (kind === 'crun' && ociVersion && compareVersions(ociVersion, '1.9') < 0) {
    return `crun ${ociVersion} only supports OCI runtime spec 1.0.x and refuses the spec CRI-O ${crioVersion} writes ("unknown version specified"); crun 1.9 or later works`;
  }
  return null;
}

/** Which OCI runtime a binary is, from its file name (runc-1.3.6 → runc). */
export function guessOciKind(binaryPath: string): 'runc' | 'crun' | 'youki' | 'runsc' | null {
  const base = binaryPath.split('/').pop() ?? '';
  for (const kind of ['runsc', 'youki', 'crun', 'runc'] as const) if (base.startsWith(kind)) return kind;
  return null;
}
