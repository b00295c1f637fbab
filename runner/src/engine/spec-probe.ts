// The side of spec-version.ts that runs things: the spec version of a container nerdctl creates,
// and the probe of an OCI runtime with a config.json that holds only that version.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exec } from '../util/exec.ts';
import type { RunningEngine } from './engine.ts';
import { parseInspectSpecVersion, probeConfig, specRefusedBy } from './spec-version.ts';

const PROBE_TIMEOUT_MS = 30_000;

/**
 * The OCI runtime-spec version nerdctl writes into its containers' config.json: that of a
 * container created (never started: no runtime runs) from `image` on the engine's own daemon,
 * read back with `container inspect --mode native`, then removed; null when nerdctl does not say.
 */
export async function nerdctlSpecVersion(engine: RunningEngine, image: string): Promise<string | null> {
  const g = engine.plan.globalArgs;
  const name = `rb-spec-${randomBytes(4).toString('hex')}`;
  const create = await engine.cli(
    [...g, 'create', '--name', name, '--network', 'none', image, '/bin/true'],
    60_000,
  );
  if (create.exitCode !== 0) return null;
  try {
    const inspect = await engine.cli([...g, 'container', 'inspect', '--mode', 'native', name], 60_000);
    return inspect.exitCode === 0 ? parseInspectSpecVersion(inspect.stdout) : null;
  } finally {
    await engine.cli([...g, 'rm', '-f', name], 60_000);
  }
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
