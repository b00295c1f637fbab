// Does an OCI runtime take the OCI runtime-spec version a nerdctl target's containers get?
// Decided before anything is measured, so a runtime that would refuse every container is
// reported once, with the fix, instead of as a pile of failed repetitions.
//
// nerdctl writes the spec itself, with the containerd client library it is built with (nerdctl
// 2.x: containerd 2's, runtime-spec ≥ 1.2), whatever containerd daemon runs under it; so the
// version is read from a container nerdctl creates (and never starts) on the run's own daemon.
// Neither `--version` nor `features` says which versions a runtime takes: crun 1.8.1 prints
// "spec: 1.0.0" and has no `features`, yet takes 1.1.x; crun 1.21's `features` says
// ociVersionMax 1.1.0+dev and it takes 1.3.0; runc 1.1's says 1.0.2-dev and it takes any. So the
// runtime is asked: `create` of a bundle whose config.json holds nothing but `ociVersion`. Every
// runtime refuses that config before it makes anything (no process, no linux block); the reason
// says whether the version was the problem (crun 1.8: "unknown version specified") or the
// version passed and the content did not (runc: "process property must not be empty"; runsc and
// youki likewise: checked with 1.1.0, 1.2.1 and 1.3.0 on the runtimes this project measures).

/**
 * The `ociVersion` of the spec `nerdctl container inspect --mode native <id>` shows (a JSON array
 * of containers, each with its decoded `Spec`), or null.
 */
export function parseInspectSpecVersion(inspectJson: string): string | null {
  try {
    const [first] = JSON.parse(inspectJson) as { Spec?: { ociVersion?: unknown } }[];
    const v = first?.Spec?.ociVersion;
    return typeof v === 'string' && v.length > 0 ? v : null;
  } catch {
    return null;
  }
}

/** The probe's config.json: the version and nothing else, so no runtime gets as far as acting. */
export function probeConfig(specVersion: string): string {
  return `${JSON.stringify({ ociVersion: specVersion })}\n`;
}

/**
 * A line refusing a version ("unknown version specified", "unsupported spec version 1.3.0"), not
 * one that merely shows it (runsc prints the whole spec, `&{Version:1.3.0 Process:<nil> …}`, when
 * it stops at the missing process).
 */
const VERSION_REFUSAL =
  /\b(unknown|unsupported|invalid|incompatible)\b[^:]{0,40}\bversion\b|\bversion\b[^:]{0,40}\b(not supported|unsupported|unknown)\b/i;

/**
 * Whether the probe's error says the version was refused: the runtime's own message then, else
 * null (it went past the version to the config's missing parts). A probe that *succeeded* would
 * be a runtime that checks nothing, which takes the version too.
 */
export function specRefusedBy(probe: { exitCode: number | null; output: string }): string | null {
  if (probe.exitCode === 0) return null;
  const line = probe.output
    .split('\n')
    .map((l) => l.replace(/^time="[^"]*"\s+level=\w+\s+msg=/, '').trim())
    .find((l) => VERSION_REFUSAL.test(l));
  return line ?? null;
}

/** What the refusal of one nerdctl × runtime says: the runtime, the spec and its writer, the fix. */
export function specRefusalReason(opts: {
  runtime: { name: string; version: string };
  specVersion: string;
  nerdctl: string;
  containerd: string;
  message: string;
}): string {
  const { runtime, specVersion, message } = opts;
  return (
    `${runtime.name} ${runtime.version} refuses OCI runtime spec ${specVersion}, which nerdctl ${opts.nerdctl} writes ` +
    `with its own containerd client library, whatever the daemon (here containerd ${opts.containerd}); ` +
    `${runtime.name} says: ${message}. Nothing was run with it. Fix: a newer ${runtime.name} first on PATH ` +
    `(crun ≥ 1.9 takes 1.2 and 1.3: runtime-bench install --source distro --suites trixie crun@1.21, then ` +
    `PATH=/opt/runtime-bench/crun/1.21/bin:$PATH), or leave ${runtime.name} out of this target`
  );
}
