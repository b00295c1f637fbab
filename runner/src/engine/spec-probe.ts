// The side of spec-version.ts that runs things: the spec version a containerd writes, and the
// probe of an OCI runtime with a config.json that holds only that version.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { which } from '../stack/discover.ts';
import { exec } from '../util/exec.ts';
import { parseSpecVersion, probeConfig, specRefusedBy } from './spec-version.ts';

const PROBE_TIMEOUT_MS = 30_000;

/**
 * The OCI runtime-spec version `containerd` writes into its containers' config.json: `ctr oci
 * spec` (containerd's default spec, printed without a daemon) of the ctr beside it; null when
 * there is no ctr there or it says nothing usable.
 */
export async function containerdSpecVersion(containerd: string): Promise<string | null> {
  const ctr = await which(join(dirname(containerd), 'ctr'));
  if (!ctr) return null;
  const r = await exec(ctr, ['oci', 'spec'], { allowFailure: true, timeoutMs: PROBE_TIMEOUT_MS });
  return r.exitCode === 0 ? parseSpecVersion(r.stdout) : null;
}

/**
 * The runtime's own refusal of spec `version`, or null when it takes it: `create` of a bundle
 * under `dir` whose config.json is only the version, with a state root of its own; both removed.
 */
export async function runtimeSpecRefusal(
  binary: string,
  version: string,
  dir: string,
): Promise<string | null> {
  const bundle = await mkdtemp(join(dir, 'spec-probe-'));
  const root = ['--root', join(bundle, 'state')];
  try {
    await writeFile(join(bundle, 'config.json'), probeConfig(version));
    const r = await exec(binary, [...root, 'create', '--bundle', bundle, 'rb-spec-probe'], {
      allowFailure: true,
      timeoutMs: PROBE_TIMEOUT_MS,
      cwd: bundle,
    });
    // A runtime that created a container from that config checks nothing: remove it.
    if (r.exitCode === 0)
      await exec(binary, [...root, 'delete', '--force', 'rb-spec-probe'], {
        allowFailure: true,
        timeoutMs: PROBE_TIMEOUT_MS,
      });
    return specRefusedBy({ exitCode: r.exitCode, output: `${r.stderr}\n${r.stdout}` });
  } finally {
    await rm(bundle, { recursive: true, force: true });
  }
}
