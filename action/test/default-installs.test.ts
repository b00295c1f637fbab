// Every caller we show users installs with its defaults: each example workflow under workflows/,
// each YAML block of the README and docs/action.md, and the action's own defaults are read; the
// install each would ask for (the action's installSpecs/installSource, a sweep's range ends) is
// planned by the installer as `install --dry-run` plans it, reading the release API where that
// is how an asset is verified — here a loopback server standing in for GitHub's API. A default
// nothing can verify fails its plan with the install's own error, so it fails here.
//
// The loopback API answers `latest` of crun and youki with digests (GitHub computes one for every
// asset uploaded since June 2025, and a latest release is newer) and no fixed version at all: a
// default that names a fixed version must not depend on when its assets were uploaded (crun 1.21's
// predate digests: the API reports null), so it must be verified by a checksum file or a pin, or
// come from a source that verifies (distro).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { RbError } from '@runtime-bench/runner';
import {
  DEFAULT_SUITES,
  checkInstallPlan,
  formatPlan,
  parseSpecList,
  realInstallEnv,
  type CheckedPlan,
  type Source,
} from '@runtime-bench/runner/install';
import { parseSweepSpecs } from '../../runner/src/sweep/plan.ts';
import { startReleaseServer, type ReleaseServer } from '../../runner/test/unit/install/release-server.ts';
import { installSpecs } from '../src/cri.ts';
import { inputEnvNames, installSource, readInputs } from '../src/inputs.ts';

const root = join(import.meta.dirname, '../..');
const read = (p: string) => readFile(join(root, p), 'utf8');
const ACTION = 'runtime-bench/runtime-bench@v1';
const REUSABLE = 'runtime-bench/runtime-bench/.github/workflows/runtime-bench.yml@v1';

interface Workflow {
  on?: { workflow_dispatch?: { inputs?: Record<string, { default?: unknown }> } | null } | null;
  jobs: Record<
    string,
    {
      uses?: string;
      with?: Record<string, unknown>;
      steps?: { uses?: string; with?: Record<string, unknown> }[];
    }
  >;
}

/**
 * The value of a `with:` entry on a fresh repository run with its defaults: `${{ inputs.x }}` is
 * the dispatch input's default, `vars.*` are unset, `a || 'literal'` takes the first that is set.
 */
function evaluate(value: unknown, inputs: Record<string, unknown>): string {
  return String(value ?? '').replace(/\$\{\{\s*(.*?)\s*\}\}/gs, (_whole, expression: string) => {
    for (const operand of expression.split('||').map((o) => o.trim())) {
      const literal = /^'((?:[^']|'')*)'$/s.exec(operand);
      if (literal) return literal[1]!.replace(/''/g, "'");
      const input = /^inputs\.([\w-]+)$/.exec(operand);
      if (input && inputs[input[1]!] !== undefined && inputs[input[1]!] !== '')
        return String(inputs[input[1]!]);
      if (!/^(vars|inputs)\.[\w-]+$/.test(operand)) throw new Error(`cannot evaluate \${{ ${expression} }}`);
    }
    return '';
  });
}

/** The reusable workflow's fallback for a target key: `matrix.target.<key> || '<fallback>'`. */
async function reusableFallbacks(): Promise<Record<string, string>> {
  const wf = parse(await read('.github/workflows/runtime-bench.yml')) as Workflow;
  const step = wf.jobs.bench!.steps!.find((s) => s.uses === './.runtime-bench-action')!;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(step.with ?? {})) {
    const m = /^\$\{\{ matrix\.target\.([\w-]+) \|\| '([^']*)' \}\}$/.exec(String(value));
    if (m && m[1] === name) out[name] = m[2]!;
  }
  return out;
}

interface Caller {
  where: string;
  /** The action's `with:` as the runner hands it over (INPUT_* variables). */
  env: Record<string, string>;
  /** Cluster mode: nothing is installed. */
  cluster: boolean;
}

/** Every use of the action (directly, or through the reusable workflow's targets) in one workflow. */
function callersOf(where: string, wf: Workflow, fallbacks: Record<string, string>): Caller[] {
  const dispatch = Object.fromEntries(
    Object.entries(wf.on?.workflow_dispatch?.inputs ?? {}).map(([k, v]) => [k, v.default]),
  );
  const toEnv = (withs: Record<string, string>) =>
    Object.fromEntries(Object.entries(withs).map(([k, v]) => [inputEnvNames(k)[0]!, v]));
  const callers: Caller[] = [];
  for (const [jobName, job] of Object.entries(wf.jobs)) {
    for (const step of job.steps ?? []) {
      if (step.uses !== ACTION) continue;
      const withs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(v, dispatch)]),
      );
      callers.push({ where: `${where} job ${jobName}`, env: toEnv(withs), cluster: false });
    }
    if (job.uses === REUSABLE) {
      const targets = JSON.parse(evaluate(job.with?.targets, dispatch)) as Record<string, unknown>[];
      for (const target of targets) {
        const withs: Record<string, string> = {};
        for (const [name, fallback] of Object.entries(fallbacks))
          withs[name] = target[name] === undefined ? fallback : String(target[name]);
        const cluster = evaluate(job.with?.mode, dispatch) === 'cluster';
        callers.push({
          where: `${where} job ${jobName} target ${String(target.name)}`,
          env: toEnv(withs),
          cluster,
        });
      }
    }
  }
  return callers;
}

/** What the action would install for a caller: source and specs (a sweep: both ends of its range). */
function installOf(caller: Caller): { source: Source; specs: string[] } {
  const inputs = readInputs(caller.env);
  if (inputs.sweep === '') return { source: installSource(inputs), specs: installSpecs(inputs) };
  const sweep = parseSweepSpecs([inputs.sweep]);
  const versions = sweep.range ? [sweep.range.from, sweep.range.to] : sweep.versions;
  return { source: installSource(inputs, true), specs: versions.map((v) => `${sweep.component}@${v}`) };
}

const sha256 = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
let work: string;
let server: ReleaseServer;

/** The loopback API's answer for `<owner>/<repo>` at `which` (latest, or tags/<tag>). */
async function serveRelease(repo: string, which: string, release: object): Promise<void> {
  const file = join(work, 'www', 'api', 'repos', repo, 'releases', which);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, JSON.stringify(release));
}

const plan = (source: Source, specs: string[]): Promise<CheckedPlan> =>
  checkInstallPlan(
    realInstallEnv(() => {}),
    { specs: parseSpecList(specs.join(' ')), source, prefix: '/opt/runtime-bench', suites: DEFAULT_SUITES },
    { githubApi: `${server.url}/api` },
  );

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-defaults-'));
  server = await startReleaseServer(join(work, 'www'));
  // Only what an x64 runner asks for (the catalogue names amd64 / x86_64 assets there).
  const crun = { tag_name: '1.25', assets: [{ name: 'crun-1.25-linux-amd64', digest: sha256('crun 1.25') }] };
  await serveRelease('containers/crun', 'latest', crun);
  await serveRelease('containers/crun', 'tags/1.25', crun);
  const youki = {
    tag_name: 'v0.5.7',
    assets: [{ name: 'youki-0.5.7-x86_64-gnu.tar.gz', digest: sha256('youki 0.5.7') }],
  };
  await serveRelease('youki-dev/youki', 'latest', youki);
  await serveRelease('youki-dev/youki', 'tags/v0.5.7', youki);
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

const fallbacks = await reusableFallbacks();
const sources: [string, Workflow][] = [];
for (const file of (await readdir(join(root, 'workflows'))).filter((f) => f.endsWith('.yml')).sort())
  sources.push([`workflows/${file}`, parse(await read(`workflows/${file}`)) as Workflow]);
for (const page of ['README.md', 'docs/action.md'])
  for (const [i, block] of [...(await read(page)).matchAll(/```yaml\n([\s\S]*?)```/g)].entries()) {
    const doc = parse(block[1]!) as Workflow | null;
    if (doc?.jobs) sources.push([`${page} yaml block ${i + 1}`, doc]);
  }
const callers = [
  // The action with every input left at its default.
  { where: 'action.yml defaults', env: {}, cluster: false },
  ...sources.flatMap(([where, wf]) => callersOf(where, wf, fallbacks)),
];

describe.skipIf(process.arch !== 'x64')('the default installs of every caller we show', () => {
  test('the callers were found: every example workflow, the README usage and the nightly it shows', () => {
    const where = callers.map((c) => c.where);
    for (const file of ['compare', 'nightly', 'sweep', 'cluster-nightly'])
      expect(
        where.some((w) => w.startsWith(`workflows/${file}.yml`)),
        file,
      ).toBe(true);
    expect(where.filter((w) => w.startsWith('README.md')).length).toBe(2);
  });

  test.each(callers.filter((c) => !c.cluster).map((c) => [c.where, c] as const))(
    '%s: its install plan succeeds, every download verified',
    async (_where, caller) => {
      const { source, specs } = installOf(caller);
      const checked = await plan(source, specs);
      const text = formatPlan(checked.plan, checked.verification);
      for (const [i, step] of checked.plan.steps.entries()) {
        if (step.source !== 'release') continue;
        // Every asset of a release step has a method; none left unverified, none claimed blindly.
        expect(checked.verification[i]!.assets.length, text).toBe(step.component.release!.length);
        for (const asset of checked.verification[i]!.assets)
          if (asset.by === 'release-api digest') expect(asset.digest, text).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(text).not.toContain('sha256 verified');
    },
  );

  test('cluster mode installs nothing (its callers are skipped above for that reason alone)', () => {
    const cluster = callers.filter((c) => c.cluster);
    // workflows/cluster-nightly.yml, and its copy in docs/action.md (shown verbatim, tested elsewhere).
    expect(cluster.map((c) => c.where)).toEqual([
      expect.stringMatching(/^workflows\/cluster-nightly\.yml /),
      expect.stringMatching(/^docs\/action\.md yaml block \d+ /),
    ]);
  });

  test('the old README default, crun@1.21 from source release, cannot be verified: the plan fails as the install would', async () => {
    // As GitHub answers for crun 1.21, whose assets were uploaded before it computed digests.
    await serveRelease('containers/crun', 'tags/1.21', {
      tag_name: '1.21',
      assets: [{ name: 'crun-1.21-linux-amd64', digest: null }],
    });
    const error = await plan('release', ['containerd@1.7.24', 'runc@1.3.6', 'crun@1.21']).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).code).toBe('INSTALL_CHECKSUM_MISSING');
    expect((error as RbError).message).toContain('assets[0].digest of crun-1.21-linux-amd64 is null');
    expect((error as RbError).hint).toContain('--source distro');
  });
});
