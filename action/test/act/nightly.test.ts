// End to end under a real Actions engine: act runs workflows/nightly.yml (verbatim) on this host →
// the reusable workflow at the released tag v1 (scripts/release.sh on this tree) → the composite
// action. Night 1: two targets, one with runc and crun, one whose runc is broken on purpose; both
// are benchmarked, uploaded (act's artifact server), published to the data branch of a local bare
// repository, and the site is built from that branch; a third target runs CRI-O (the shared build,
// found by the `path` source because the runner's PATH holds its directory) with runc. Night 2: the regression gate, against
// histories crafted from night 1's result (one with faster numbers, one unchanged). The runtimes
// come from the `path` source (the host's Debian containerd, runc, crun): the `distro` source
// measured 2 min 56 s for containerd and runc on this host (three suites' package lists and the
// downloads), per target, which does not fit CI's budget. Budget of the whole file: 12 minutes.
import { execFile } from 'node:child_process';
import { access, chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readResultFile } from '@runtime-bench/runner';
import type { RunResult } from '@runtime-bench/schemas';
import { sharedToolsDir } from '../../../runner/test/support/shared-tools.ts';
import {
  buildSite,
  CALLER_REPO,
  git,
  prepareRepos,
  repoRoot,
  runAct,
  stackLeftovers,
  type ActRun,
  type Repos,
} from './harness.ts';

const exec = promisify(execFile);
const has = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const suffix = process.env.RB_TEST_STACK_SUFFIX ?? '';
const stack = (leg: string) => `act-${leg}${suffix}`;
const LEGS = ['pair', 'broken', 'crio', 'regressed', 'unchanged'];
// CRI-O and crictl: the shared builds (no registry we reach has them); the CRI-O leg's runner has
// their directories on PATH, as a machine with CRI-O installed by hand would.
const CRIO_DIRS = [join(sharedToolsDir(), 'cri-o'), join(sharedToolsDir(), 'cri-tools')];

const reason =
  process.getuid?.() !== 0
    ? 'needs root'
    : !(await has('/usr/bin/containerd')) || !(await has('/usr/sbin/runc')) || !(await has('/usr/bin/crun'))
      ? 'needs the Debian containerd, runc and crun'
      : !(await has(join(CRIO_DIRS[0]!, 'crio'))) || !(await has(join(CRIO_DIRS[1]!, 'crictl')))
        ? `needs the shared CRI-O and crictl builds in ${sharedToolsDir()} (set RB_SHARED_TOOLS)`
        : (await exec('act', ['--version']).catch(() => null)) === null
          ? 'needs act on PATH (bash scripts/setup-test.sh installs it)'
          : null;
if (reason) console.warn(`act end-to-end test skipped: ${reason}`);

/** Versions as the binaries report them, read here independently of the installer. */
async function version(bin: string): Promise<string> {
  const { stdout } = await exec(bin, ['--version']);
  return /(\d+\.\d+\.\d+)/.exec(stdout)![1]!;
}

/** Lines of one job of the act log (act prefixes each with `[workflow/job]`). */
const jobLines = (run: ActRun, job: string) => run.log.split('\n').filter((l) => l.includes(job));
const stepOutcome = (run: ActRun, job: string, step: string) =>
  jobLines(run, job)
    .filter((l) => l.includes(` - Main ${step}`))
    .map((l) => (l.includes('✅') ? 'success' : l.includes('❌') ? 'failure' : 'other'));

/** The `regressions` output the reusable workflow's report job set, or NaN. */
const reportOutput = (run: ActRun) =>
  Number(/::set-output:: regressions=(\d+)/.exec(jobLines(run, '/report ').join('\n'))?.[1] ?? Number.NaN);

/** The files of an artifact as the upload stand-in stored them (a tar under act's .zip name). */
async function artifactFiles(dir: string, name: string, into: string): Promise<string[]> {
  const runDir = join(dir, (await readdir(dir))[0]!);
  await mkdir(into, { recursive: true });
  await exec('tar', ['-C', into, '-xf', join(runDir, name, `${name}.zip`)]);
  return (await readdir(into)).sort();
}

/** A copy of `run` that looks like an earlier night: other run id and time, metrics scaled. */
/**
 * Night 1's result moved `daysBefore` days back with every metric scaled: by one factor, or by a
 * factor per metric (its index over the whole run) — real nights vary metric by metric, and a
 * history whose nights are exact multiples of one another has no spread left once the gate
 * removes each night's shared factor.
 */
function craftedNight(
  run: RunResult,
  daysBefore: number,
  factor: number | ((metricIndex: number) => number),
): RunResult {
  const copy = structuredClone(run);
  const at = new Date(Date.parse(run.startedAt) - daysBefore * 86_400_000);
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  copy.runId = `${stamp}-${(0xa0000000 + daysBefore).toString(16)}`;
  copy.startedAt = at.toISOString();
  copy.finishedAt = new Date(at.getTime() + 60_000).toISOString();
  let metricIndex = 0;
  for (const r of copy.results)
    for (const m of r.metrics) {
      const scale = typeof factor === 'number' ? factor : factor(metricIndex++);
      // "Faster" is smaller for lower-is-better metrics and larger for the others.
      const f = m.direction === 'lower' ? scale : 1 / scale;
      m.samples = m.samples.map((x) => x * f);
      const summary = m.summary;
      if (summary)
        for (const k of ['median', 'mean', 'stdev', 'min', 'max', 'p90', 'p99'] as const) {
          const v = summary[k];
          if (typeof v === 'number') summary[k] = v * f;
        }
    }
  return copy;
}

describe.runIf(reason === null)('workflows/nightly.yml under act, end to end', () => {
  let tmp = '';
  let repos: Repos;
  let night1: ActRun;
  let night2: ActRun;
  const prefixBefore: string[] = [];
  const versions = { containerd: '', runc: '', crun: '', crio: '' };
  const target = (name: string, extra: Record<string, string>) => ({
    name,
    'runs-on': ['self-hosted', 'linux', 'x64'],
    source: 'path',
    'cri-version': 'latest',
    'stack-name': stack(name),
    ...extra,
  });

  beforeAll(async () => {
    tmp = await mkdtemp(`/var/tmp/rb-act${suffix}-`);
    prefixBefore.push(...(await readdir('/opt/runtime-bench').catch(() => [])));
    versions.containerd = await version('/usr/bin/containerd');
    versions.runc = await version('/usr/sbin/runc');
    versions.crun = await version('/usr/bin/crun');
    versions.crio = await version(join(CRIO_DIRS[0]!, 'crio'));
    // A runc that reports its version and fails every container operation: a broken handler.
    await mkdir(join(tmp, 'broken'));
    await writeFile(
      join(tmp, 'broken/runc'),
      '#!/bin/sh\ncase "$1" in --version|-v) exec /usr/sbin/runc --version;; esac\n' +
        'echo "runc broken on purpose by the act test" >&2\nexit 1\n',
    );
    await chmod(join(tmp, 'broken/runc'), 0o755);
    repos = await prepareRepos(tmp, {
      // A small suite: one family, three repetitions, no large image (startup.first-output only).
      'runtime-bench.yaml':
        'name: act-nightly\nbenchmarks: [operations.container.lifecycle]\nruns: 3\nwarmup: 0\nimages: { largeSizeMiB: 0 }\n',
      // The CRI-O leg's own suite: the same family, two repetitions (it only has to prove the path).
      'runtime-bench-crio.yaml':
        'name: act-nightly-crio\nbenchmarks: [operations.container.lifecycle]\nruns: 2\nwarmup: 0\nimages: { largeSizeMiB: 0 }\n',
      'baseline/.gitkeep': '',
    });
    night1 = await runAct({
      tmp,
      repos,
      night: '1',
      timeoutMs: 420_000,
      pathDirs: CRIO_DIRS,
      vars: {
        RUNTIME_BENCH_TARGETS: JSON.stringify([
          target('pair', { 'oci-runtimes': 'runc crun' }),
          target('broken', { 'oci-runtimes': `runc@${join(tmp, 'broken/runc')}` }),
          // runc: bookworm's crun 1.8.1 refuses CRI-O's OCI spec 1.3.0.
          target('crio', { cri: 'cri-o', 'oci-runtimes': 'runc', config: 'runtime-bench-crio.yaml' }),
        ]),
      },
    });
  }, 540_000);

  afterAll(async () => {
    // Whatever a failed assertion left: our stacks only (by name), then act's and our files.
    for (const leg of LEGS)
      await exec(process.execPath, [
        join(repoRoot, 'runner/bin/runtime-bench.js'),
        'stack',
        'down',
        '--stack',
        stack(leg),
        '--purge',
      ]).catch(() => undefined);
    // RB_ACT_LOG_DIR keeps act's logs (e.g. as CI artifacts) before the temp dir goes.
    if (tmp && process.env.RB_ACT_LOG_DIR) {
      await mkdir(process.env.RB_ACT_LOG_DIR, { recursive: true });
      for (const f of (await readdir(tmp)).filter((n) => n.startsWith('act-') && n.endsWith('.log')))
        await cp(join(tmp, f), join(process.env.RB_ACT_LOG_DIR, f));
    }
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, 120_000);

  test('night 1: the release tree ran; each target benchmarked, cleaned up and uploaded, also the broken one', () => {
    expect(repos.releaseLog).toMatch(/tagged v1\.0\.0 and moved v1/);
    expect(night1.log).toMatch(/LocalRepositoryCache matched .*runtime-bench\/runtime-bench with ref v1/);
    console.log(`act night 1: ${night1.seconds.toFixed(0)} s`);
    for (const leg of ['pair', 'crio']) {
      expect(stepOutcome(night1, `bench ${leg}`, 'Benchmark'), leg).toEqual(['success']);
      expect(stepOutcome(night1, `bench ${leg}`, 'Job summary and regressions'), leg).toEqual(['success']);
    }
    // The broken runc fails the job at the summary, after the result was written; cleanup and
    // the upload still run.
    expect(stepOutcome(night1, 'bench broken', 'Job summary and regressions')).toEqual(['failure']);
    for (const leg of ['pair', 'broken', 'crio']) {
      expect(
        stepOutcome(night1, `bench ${leg}`, 'Clean up the stack and what was installed, or the kubeconfig'),
      ).toEqual(['success']);
      expect(stepOutcome(night1, `bench ${leg}`, 'Keep the result')).toEqual(['success']);
      expect(jobLines(night1, `bench ${leg}`).some((l) => l.includes(`uploaded runtime-bench-${leg} `))).toBe(
        true,
      );
    }
    expect(night1.log).toMatch(/::error title=operations\.container\.lifecycle on .*runc.*failed/);
  });

  test('night 1: the summary names both handlers; the regressions output is set', async () => {
    const files = await artifactFiles(join(tmp, 'artifacts-1'), 'runtime-bench-pair', join(tmp, 'a-pair'));
    expect(files).toEqual(['pair.json', 'pair.md', 'pair.regressions']);
    const summary = await readFile(join(tmp, 'a-pair/pair.md'), 'utf8');
    expect(summary).toContain(`| runc-latest (runc ${versions.runc}) |`);
    expect(summary).toContain(`| crun-latest (crun ${versions.crun}) |`);
    expect(summary).toContain('## Runner-side cost');
    console.log(summary.slice(summary.indexOf('## Runner-side cost')));
    expect(summary).toMatch(/\| setup \| [\d.]+ \|/);
    const result = await readResultFile(join(tmp, 'a-pair/pair.json'));
    expect(result.targets.map((t) => t.id).sort()).toEqual([
      'containerd-latest/crun-latest',
      'containerd-latest/runc-latest',
    ]);
    expect(result.targets.map((t) => `${t.cri.version} ${t.oci.name} ${t.oci.version}`).sort()).toEqual([
      `${versions.containerd} crun ${versions.crun}`,
      `${versions.containerd} runc ${versions.runc}`,
    ]);
    expect(result.results.every((r) => r.status === 'ok')).toBe(true);
    // The reusable workflow's `regressions` output, summed over the targets by its report job.
    // (act does not start the caller's `if: always()` job after a failed job, GitHub does.)
    expect(reportOutput(night1)).toBe(0);
  });

  test('night 1: the CRI-O target ran CRI-O (its version from the CRI Version call) with runc', async () => {
    const files = await artifactFiles(join(tmp, 'artifacts-1'), 'runtime-bench-crio', join(tmp, 'a-crio'));
    expect(files).toEqual(['crio.json', 'crio.md', 'crio.regressions']);
    const summary = await readFile(join(tmp, 'a-crio/crio.md'), 'utf8');
    expect(summary).toContain(`| runc-latest (runc ${versions.runc}) |`);
    const result = await readResultFile(join(tmp, 'a-crio/crio.json'));
    expect(result.targets).toHaveLength(1);
    const t = result.targets[0]!;
    expect(t.id).toBe('cri-o-latest/runc-latest');
    expect(t.cri.name).toBe('cri-o');
    expect(t.cri.version).toBe(versions.crio);
    expect(t.oci).toMatchObject({ name: 'runc', version: versions.runc });
    expect(result.components).toContainEqual(
      expect.objectContaining({ name: 'cri-o', role: 'cri', version: versions.crio }),
    );
    expect(result.results.map((r) => [r.benchmark, r.status, r.attempts])).toEqual([
      ['operations.container.lifecycle', 'ok', 2],
    ]);
  });

  test('night 1: the data branch got one valid file per target, and the site builds from it', async () => {
    const bare = join(repos.gitBase, `${CALLER_REPO}.git`);
    const files = (await git(bare, 'ls-tree', '-r', '--name-only', 'benchmark-data', 'data/runs')).split(
      '\n',
    );
    expect(files).toHaveLength(3);
    const data = join(tmp, 'data-branch');
    await git(tmp, 'clone', '-q', '--branch', 'benchmark-data', bare, data);
    const runs = await Promise.all(files.map((f) => readResultFile(join(data, f))));
    expect(runs.map((r) => r.targets.length).sort()).toEqual([1, 1, 2]);
    expect(runs.flatMap((r) => r.targets.map((t) => t.cri.name)).sort()).toEqual([
      'containerd',
      'containerd',
      'containerd',
      'cri-o',
    ]);
    const runtimeBench = join(repoRoot, 'runner/bin/runtime-bench.js');
    await exec(process.execPath, [runtimeBench, 'data', 'verify', '--dir', join(data, 'data')]);
    const out = join(tmp, 'site');
    await buildSite(join(data, 'data'), out);
    const html = (await exec('grep', ['-rl', runs[0]!.runId, out])).stdout;
    expect(html.length).toBeGreaterThan(0);
  }, 240_000);

  test('night 1: nothing is left: stacks, processes, mounts, installed prefixes, act job dirs', async () => {
    for (const leg of ['pair', 'broken', 'crio'])
      expect(await stackLeftovers(stack(leg)), leg).toEqual({
        stateDir: false,
        mounted: false,
        processes: [],
      });
    expect((await readdir('/opt/runtime-bench').catch(() => [])).sort()).toEqual([...prefixBefore].sort());
    // act removes each job's directory (RUNNER_TEMP with the install record) when the job ends.
    const actCache = join(tmp, 'home/.cache/act');
    const left = await readdir(actCache).catch(() => [] as string[]);
    for (const d of left) expect(await has(join(actCache, d, 'tmp/runtime-bench/install.json'))).toBe(false);
  });

  test('night 2: the gate fails the target whose history was faster and passes the unchanged one', async () => {
    const night1Pair = await readResultFile(join(tmp, 'a-pair/pair.json'));
    // Four earlier nights each: every metric 5× faster with 2 % spread, or every metric spread
    // ±40 % around night 1, each metric on its own (the factors rotate over metrics and nights).
    const spread = [0.6, 0.85, 1.2, 1.6];
    const histories: Record<string, ((night: number) => number | ((metric: number) => number))[]> = {
      regressed: [0.2, 0.204, 0.196, 0.2].map((f) => () => f),
      unchanged: spread.map(() => (night: number) => (metric: number) => spread[(night + metric) % 4]!),
    };
    for (const [leg, nights] of Object.entries(histories)) {
      const dir = join(repos.workspace, `baseline-${leg}`);
      await mkdir(dir, { recursive: true });
      for (const [i, factorOf] of nights.entries())
        await writeFile(
          join(dir, `night-${i}.json`),
          JSON.stringify(craftedNight(night1Pair, i + 1, factorOf(i))),
        );
    }
    night2 = await runAct({
      tmp,
      repos,
      night: '2',
      timeoutMs: 300_000,
      vars: {
        RUNTIME_BENCH_TARGETS: JSON.stringify([
          target('regressed', { 'oci-runtimes': 'runc', baseline: 'baseline-regressed/' }),
          target('unchanged', { 'oci-runtimes': 'runc', baseline: 'baseline-unchanged/' }),
        ]),
      },
    });
    console.log(`act night 2: ${night2.seconds.toFixed(0)} s`);
    expect(stepOutcome(night2, 'bench regressed', 'Job summary and regressions')).toEqual(['failure']);
    expect(stepOutcome(night2, 'bench unchanged', 'Job summary and regressions')).toEqual(['success']);
    const regressed = jobLines(night2, 'bench regressed');
    expect(
      regressed.some((l) =>
        /::error title=runtime-bench regression::operations\.container\.lifecycle/.test(l),
      ),
    ).toBe(true);
    const files = await artifactFiles(
      join(tmp, 'artifacts-2'),
      'runtime-bench-regressed',
      join(tmp, 'a-reg'),
    );
    expect(files).toContain('regressed.md');
    const summary = await readFile(join(tmp, 'a-reg/regressed.md'), 'utf8');
    expect(summary).toMatch(
      // the lifecycle's common mode (its night factor row) or one of its metrics comes first
      /## New regressions\n\n- operations\.container\.lifecycle (?:\(night factor\)|\S+) on containerd-latest\/runc-latest: \+\d/,
    );
    expect(Number(await readFile(join(tmp, 'a-reg/regressed.regressions'), 'utf8'))).toBeGreaterThan(0);
    // Night 1 filled the runner's dependency cache for this lockfile; night 2's setup used it.
    expect(summary).toMatch(/\| setup \| [\d.]+ \| linked from the runner's cache for this pnpm-lock\.yaml/);
    const unchanged = await artifactFiles(
      join(tmp, 'artifacts-2'),
      'runtime-bench-unchanged',
      join(tmp, 'a-unc'),
    );
    expect(unchanged).toContain('unchanged.regressions');
    expect((await readFile(join(tmp, 'a-unc/unchanged.regressions'), 'utf8')).trim()).toBe('0');
    expect(reportOutput(night2)).toBeGreaterThan(0);
    for (const leg of ['regressed', 'unchanged'])
      expect(await has(`/var/lib/runtime-bench/stacks/${stack(leg)}`), leg).toBe(false);
  }, 360_000);
});
