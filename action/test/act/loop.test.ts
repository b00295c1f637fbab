// The nightly loop as a user runs it, under act: workflows/nightly.yml verbatim → the reusable
// workflow at v1 → the action, night after night, with the data branch of a local bare repository
// the only state carried from one night to the next (each night is a fresh act run with a fresh
// work directory; the runner keeps only what a self-hosted runner keeps: its pnpm store and Go
// build cache). runc comes from a Go module proxy on disk (local-module-proxy.ts) serving releases
// cut from a local clone of runc's module source:
//   nights 1, 2, 4: runc@latest is 1.3.61; each night is published, and from night 2 on the gate
//     reads the nights before it from the data branch (no baseline folder);
//   night 3: the stack's containerd is killed midway: summarised and published as incomplete;
//   night 5: 1.3.62 is out, two harmless commits, a planted 50 ms sleep in `runc init` and one more
//     commit later. The side-by-side step measures 1.3.61 beside it, the job fails naming the
//     version change, and the bisection (bisect-on-regression, the origin cloned from the proxy's
//     answer) names the planted commit. The branch then holds the five nights and the bisection
//     with its runs, and the site built from it links the regression to the bisection.
// containerd is the host's Debian one (cri-version: /usr/bin/containerd); runc is built by the
// action from the proxy. Budget of the whole file: 25 minutes.
import { execFile } from 'node:child_process';
import { access, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readResultFile } from '@runtime-bench/runner';
import { BisectReportSchema, type RunResult } from '@runtime-bench/schemas';
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
import { GO, gitIn, moduleDir, publishVersion, RUNC_MODULE } from './local-module-proxy.ts';

const exec = promisify(execFile);
const has = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const suffix = process.env.RB_TEST_STACK_SUFFIX ?? '';
const STACK = `act-loop${suffix}`;
const BISECT_STACK = `${STACK}-bisect`;
const cli = join(repoRoot, 'runner/bin/runtime-bench.js');

const reason =
  process.getuid?.() !== 0
    ? 'needs root'
    : !(await has('/usr/bin/containerd'))
      ? 'needs the Debian containerd'
      : (await exec('act', ['--version']).catch(() => null)) === null
        ? 'needs act on PATH (bash scripts/setup-test.sh installs it)'
        : (await exec(GO, ['version']).catch(() => null)) === null
          ? 'needs go (RB_GO, /usr/local/go/bin/go or on PATH)'
          : (await exec('zip', ['-v']).catch(() => null)) === null
            ? 'needs zip (bash scripts/setup-test.sh installs it)'
            : null;
if (reason) console.warn(`act loop test skipped: ${reason}`);

/** Lines of one job of the act log (act prefixes each with `[workflow/job]`). */
const jobLines = (run: ActRun, job: string) => run.log.split('\n').filter((l) => l.includes(job));
const stepOutcome = (run: ActRun, job: string, step: string) =>
  jobLines(run, job)
    .filter((l) => l.includes(` - Main ${step}`))
    .map((l) => (l.includes('✅') ? 'success' : l.includes('❌') ? 'failure' : 'other'));

describe.runIf(reason === null)('the nightly loop under act: the data branch the only state', () => {
  let tmp = '';
  let repos: Repos;
  let runc = '';
  let planted = '';
  let goEnv: Record<string, string> = {};
  const nights: ActRun[] = [];
  const prefix = () => join(tmp, 'prefix');
  const target = () => ({
    name: 'loop',
    'runs-on': ['self-hosted', 'linux', 'x64'],
    source: 'go',
    'cri-version': '/usr/bin/containerd',
    'oci-runtimes': 'runc@latest',
    'stack-name': STACK,
    prefix: prefix(),
  });
  const night = async (n: number, timeoutMs: number): Promise<ActRun> => {
    const run = await runAct({
      tmp,
      repos,
      night: `loop-${n}`,
      timeoutMs,
      vars: { RUNTIME_BENCH_TARGETS: JSON.stringify([target()]) },
      env: goEnv,
    });
    console.log(`act loop night ${n}: ${run.seconds.toFixed(0)} s, exit ${run.code}`);
    nights[n] = run;
    return run;
  };
  /** The data branch as the site and the gate read it: a fresh clone. */
  const branch = async (name: string): Promise<string> => {
    const dir = join(tmp, name);
    await rm(dir, { recursive: true, force: true });
    await git(
      tmp,
      'clone',
      '-q',
      '--branch',
      'benchmark-data',
      join(repos.gitBase, `${CALLER_REPO}.git`),
      dir,
    );
    return dir;
  };
  const runsOn = async (dir: string): Promise<{ path: string; run: RunResult }[]> => {
    const names = (await readdir(join(dir, 'data/runs'), { recursive: true })).filter((f) =>
      f.endsWith('.json'),
    );
    return Promise.all(
      names.sort().map(async (f) => ({ path: f, run: await readResultFile(join(dir, 'data/runs', f)) })),
    );
  };
  /** The nightly's own runs (its one target lineage), not a bisection's looks. */
  const nightlyRuns = (runs: { run: RunResult }[]) =>
    runs.filter(({ run }) => run.targets.some((t) => t.id.endsWith('/runc-latest')));

  beforeAll(async () => {
    tmp = await mkdtemp(`/var/tmp/rb-loop${suffix}-`);
    // runc's module source as a git repository, its first release 1.3.61.
    runc = join(tmp, 'runc');
    await cp(await moduleDir(RUNC_MODULE, 'v1.3.6'), runc, { recursive: true });
    await exec('chmod', ['-R', 'u+w', runc]); // the module cache is read-only
    await writeFile(join(runc, 'VERSION'), '1.3.61\n');
    await gitIn(runc, 'init', '-q', '-b', 'main');
    await gitIn(runc, 'add', '-A');
    await gitIn(runc, 'commit', '-q', '-m', 'runc 1.3.61: the module source of 1.3.6');
    await gitIn(runc, 'tag', 'v1.3.61');
    const proxy = join(tmp, 'goproxy');
    await publishVersion(proxy, runc, 'v1.3.61');
    // The host's Go: its proxy for what ours lacks (dependencies, toolchains), its module cache
    // as a read-only proxy first (what this runner downloaded before), its build cache.
    const goenv = JSON.parse(
      (await exec(GO, ['env', '-json', 'GOPROXY', 'GOMODCACHE', 'GOCACHE'])).stdout,
    ) as Record<string, string>;
    // The dependencies of runc's go.mod in the host's module cache (downloaded once per machine).
    await exec(GO, ['mod', 'download'], { cwd: runc, env: { ...process.env, GOFLAGS: '-mod=mod' } });
    goEnv = {
      GOPROXY: [`file://${proxy}`, `file://${goenv.GOMODCACHE}/cache/download`, goenv.GOPROXY].join(','),
      GONOSUMDB: RUNC_MODULE,
      GOCACHE: goenv.GOCACHE!,
    };
    repos = await prepareRepos(tmp, {
      // The lifecycle only, 20 rounds a night: enough for a paired decision on a 50 ms step.
      'runtime-bench.yaml':
        'name: act-loop\nbenchmarks: [operations.container.lifecycle]\nruns: 20\nwarmup: 1\nimages: { largeSizeMiB: 0 }\n',
    });
  }, 300_000);

  afterAll(async () => {
    for (const stack of [STACK, BISECT_STACK])
      await exec(process.execPath, [cli, 'stack', 'down', '--stack', stack, '--purge']).catch(
        () => undefined,
      );
    if (tmp && process.env.RB_ACT_LOG_DIR) {
      await mkdir(process.env.RB_ACT_LOG_DIR, { recursive: true });
      for (const f of (await readdir(tmp)).filter((n) => n.startsWith('act-loop-') && n.endsWith('.log')))
        await cp(join(tmp, f), join(process.env.RB_ACT_LOG_DIR, f));
    }
    // The module cache go filled under act's HOME is read-only, as go makes it.
    if (tmp) {
      await exec('chmod', ['-R', 'u+w', tmp]).catch(() => undefined);
      await rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  test('nights 1 and 2: published to the data branch; night 2 gated against night 1 read from it', async () => {
    const first = await night(1, 600_000);
    expect(stepOutcome(first, 'bench loop', 'Benchmark')).toEqual(['success']);
    expect(stepOutcome(first, 'bench loop', 'Job summary and regressions')).toEqual(['success']);
    expect(first.log).toMatch(/No history yet on benchmark-data/);
    expect(stepOutcome(first, 'publish results', 'Commit every result to the data branch')).toEqual([
      'success',
    ]);
    const second = await night(2, 600_000);
    expect(stepOutcome(second, 'bench loop', 'Job summary and regressions')).toEqual(['success']);
    // The gate's history is the branch's night 1, fetched by the history step.
    expect(jobLines(second, 'bench loop').join('\n')).toMatch(
      /1 earlier run\(s\) of this host class and targets from origin\/benchmark-data/,
    );
    const runs = nightlyRuns(await runsOn(await branch('after-2')));
    expect(runs.map(({ run }) => run.status)).toEqual(['complete', 'complete']);
    expect(
      runs.map(({ run }) => run.targets.find((t) => t.id.endsWith('/runc-latest'))!.oci.version),
    ).toEqual(['1.3.61', '1.3.61']);
  }, 1_260_000);

  test('night 3: its containerd killed midway is summarised and published as incomplete', async () => {
    // Kill the stack's containerd once a container of the run has been up (a shim of the stack
    // exists), i.e. while it measures.
    let killed = '';
    const watch = (async () => {
      const deadline = Date.now() + 540_000;
      while (Date.now() < deadline && !killed) {
        const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
        const cmd = async (p: string) => readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
        const lines = await Promise.all(pids.map(async (p) => [p, await cmd(p)] as const));
        const ours = lines.filter(([, c]) => c.includes(`/stacks/${STACK}/`));
        const shim = ours.some(([, c]) => c.startsWith('/usr/bin/containerd-shim'));
        const daemon = ours.find(([, c]) => /^(?:\/usr\/bin\/)?containerd\0/.test(c));
        if (shim && daemon) {
          await new Promise((r) => setTimeout(r, 3000));
          process.kill(Number(daemon[0]), 'SIGKILL');
          killed = daemon[0];
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const third = await night(3, 600_000);
    await watch;
    expect(killed, 'the stack containerd was found and killed').not.toBe('');
    expect(stepOutcome(third, 'bench loop', 'Benchmark')).toEqual(['failure']);
    // Summarised (and, the night being broken, failed with it), naming the dead daemon.
    expect(stepOutcome(third, 'bench loop', 'Job summary and regressions')).toEqual(['failure']);
    expect(jobLines(third, 'bench loop').join('\n')).toMatch(
      /::error title=runtime-bench run \S+ incomplete::\S+: CRI endpoint died/,
    );
    expect(stepOutcome(third, 'publish results', 'Commit every result to the data branch')).toEqual([
      'success',
    ]);
    const runs = nightlyRuns(await runsOn(await branch('after-3')));
    expect(runs.map(({ run }) => run.status)).toEqual(['complete', 'complete', 'incomplete']);
    expect(runs[2]!.run.incompleteReason).toBeTruthy();
    // What was measured before the kill is in it.
    expect(runs[2]!.run.results.flatMap((r) => r.metrics).some((m) => m.samples.length > 0)).toBe(true);
  }, 660_000);

  test('night 4: gated against nights 1–3 of the branch, nothing regressed', async () => {
    const fourth = await night(4, 600_000);
    expect(stepOutcome(fourth, 'bench loop', 'Job summary and regressions')).toEqual(['success']);
    expect(jobLines(fourth, 'bench loop').join('\n')).toMatch(
      /3 earlier run\(s\) of this host class and targets from origin\/benchmark-data/,
    );
    expect(nightlyRuns(await runsOn(await branch('after-4')))).toHaveLength(4);
  }, 660_000);

  test('night 5: runc 1.3.62 measured beside 1.3.61, the job fails naming the change, the bisection names the planted commit', async () => {
    for (const [i, message] of ['docs: a note', 'docs: another note'].entries()) {
      await writeFile(join(runc, 'docs', 'loop-test.md'), `note ${i}\n`, { flag: 'a' });
      await gitIn(runc, 'add', '-A');
      await gitIn(runc, 'commit', '-q', '-m', message);
    }
    const init = join(runc, 'init.go');
    const text = (await readFile(init, 'utf8'))
      .replace('import (\n\t"os"\n', 'import (\n\t"os"\n\t"time"\n')
      .replace('\t\tlibcontainer.Init()', '\t\ttime.Sleep(50 * time.Millisecond)\n\t\tlibcontainer.Init()');
    expect(text).toContain('time.Sleep(50 * time.Millisecond)');
    await writeFile(init, text);
    await gitIn(runc, 'commit', '-q', '-am', 'init: wait 50 ms before libcontainer.Init');
    planted = await gitIn(runc, 'rev-parse', 'HEAD');
    await writeFile(join(runc, 'VERSION'), '1.3.62\n');
    await gitIn(runc, 'commit', '-q', '-am', 'VERSION: 1.3.62');
    await gitIn(runc, 'tag', 'v1.3.62');
    await publishVersion(join(tmp, 'goproxy'), runc, 'v1.3.62');

    const fifth = await night(5, 1_500_000);
    const bench = jobLines(fifth, 'bench loop').join('\n');
    expect(stepOutcome(fifth, 'bench loop', 'Benchmark')).toEqual(['success']);
    // The regression is the version change, measured side by side, and fails the job.
    expect(stepOutcome(fifth, 'bench loop', 'Job summary and regressions')).toEqual(['failure']);
    expect(bench).toMatch(
      /::error title=runtime-bench regression::operations\.container\.lifecycle[^\n]*runc 1\.3\.61 → 1\.3\.62/,
    );
    expect(
      stepOutcome(fifth, 'bench loop', 'Bisect the regressions at a version change (bisect-on-regression)'),
    ).toEqual(['success']);
    expect(stepOutcome(fifth, 'publish results', 'Commit every result to the data branch')).toEqual([
      'success',
    ]);

    const data = await branch('after-5');
    const runs = nightlyRuns(await runsOn(data));
    expect(runs).toHaveLength(5);
    const last = runs.at(-1)!.run;
    expect(last.config.versionChanges, JSON.stringify(last.config.versionChanges)).toEqual([
      { before: expect.stringMatching(/\/runc-1\.3\.61$/), after: expect.stringMatching(/\/runc-latest$/) },
    ]);
    expect(last.targets.map((t) => t.oci.version).sort()).toEqual(['1.3.61', '1.3.62']);
    // The bisection: its report on the branch names the planted commit, and its looks' runs are there.
    const reports = (await readdir(join(data, 'data/bisections'), { recursive: true })).filter((f) =>
      f.endsWith('.json'),
    );
    expect(reports).toHaveLength(1);
    const report = BisectReportSchema.parse(
      JSON.parse(await readFile(join(data, 'data/bisections', reports[0]!), 'utf8')),
    );
    expect(report.outcome).toBe('found');
    expect(report.firstBadCommit?.commit).toBe(planted);
    const onBranch = new Set((await runsOn(data)).map(({ run }) => run.runId));
    for (const step of report.steps) for (const id of step.runIds) expect(onBranch.has(id), id).toBe(true);
  }, 1_560_000);

  test('the site built from the branch lists the regression with its bisection', async () => {
    const data = await branch('site-data');
    const out = join(tmp, 'site');
    await buildSite(join(data, 'data'), out);
    const page = await readFile(join(out, 'regressions/index.html'), 'utf8');
    expect(page).toMatch(/1\.3\.61 → 1\.3\.62/);
    expect(page).toContain(planted.slice(0, 12));
    expect(page).toMatch(/href="[^"]*bisect\/[^"]+"/);
  }, 300_000);

  test('nothing of the nights is left: stacks, processes, mounts', async () => {
    for (const stack of [STACK, BISECT_STACK])
      expect(await stackLeftovers(stack), stack).toEqual({ stateDir: false, mounted: false, processes: [] });
  });
});
