// The reusable workflow's hosted jobs (report, publish: `runs-on: ubuntu-latest`) run here as a
// GitHub-hosted image would run them, not on this host as it is: in a mount namespace where
// /usr/local/bin (this host's Node 24 and pnpm) is hidden, so the only Node is the distribution's
// (/usr/bin/node, older than 24), as an unprivileged user (nobody) with an empty home. The jobs'
// steps are read from .github/workflows/runtime-bench.yml and carried out in order: `run:` steps
// with bash as the runner runs them, and the four actions they use by what each does —
// actions/setup-node puts a Node 24 on PATH (from a tool-cache directory, as setup-node does),
// actions/checkout clones, actions/download-artifact brings the target's files. pnpm and the
// action's dependencies come from the npm registry, as on a hosted image.
import { execFile } from 'node:child_process';
import {
  access,
  chmod,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { copyWorkTree, repoRoot } from './act/harness.ts';

const exec = promisify(execFile);
const NOBODY = 65534;
const TRUST_ENV = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
  'CURL_CA_BUNDLE',
];
const has = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  name?: string;
  id?: string;
}
const workflow = parse(await readFile(join(repoRoot, '.github/workflows/runtime-bench.yml'), 'utf8')) as {
  jobs: Record<string, { 'runs-on': unknown; steps: Step[] }>;
};

const distroNode = '/usr/bin/node';
const distroMajor = await exec(distroNode, ['-p', 'process.versions.node.split(".")[0]'])
  .then((r) => Number(r.stdout.trim()))
  .catch(() => null);
const reason =
  process.getuid?.() !== 0
    ? 'needs root (a mount namespace, then nobody)'
    : distroMajor === null
      ? 'needs the distribution Node at /usr/bin/node'
      : distroMajor >= 24
        ? `the distribution Node is ${distroMajor}, not older than 24: no hosted image to stand for`
        : (await has('/usr/bin/unshare')) && (await has('/usr/bin/setpriv'))
          ? null
          : 'needs unshare and setpriv (util-linux)';
if (reason) console.warn(`hosted-environment test skipped: ${reason}`);

describe.runIf(reason === null)(
  'the hosted jobs on an image with only the distribution Node, as nobody',
  () => {
    let tmp = '';
    const dirs = () => ({
      workspace: join(tmp, 'workspace'),
      temp: join(tmp, 'runner-temp'),
      home: join(tmp, 'home'),
      toolcache: join(tmp, 'toolcache'),
      files: join(tmp, 'runner-files'),
      artifacts: join(tmp, 'artifacts'),
    });

    /** `${{ … }}` of the two jobs, as GitHub would expand them for this call. */
    const expand = (text: string): string =>
      text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
        const values: Record<string, string> = {
          'runner.temp': dirs().temp,
          'inputs.data-branch': 'benchmark-data',
          'github.token': 'not-a-token',
          'inputs.action-repository': 'runtime-bench/runtime-bench',
          'inputs.action-ref': 'v1',
          'github.repository': 'bench-user/nightly',
        };
        if (!(expr in values)) throw new Error(`the test does not know \${{ ${expr} }}`);
        return values[expr]!;
      });

    /**
     * A `run:` script as the runner runs it (bash --noprofile --norc -eo pipefail), in the hosted
     * stand-in: /usr/local/bin hidden, user nobody, an environment of only what a job has.
     */
    async function runStep(script: string, env: Record<string, string>, path: string[]) {
      const file = join(dirs().files, `step-${Math.random().toString(36).slice(2)}.sh`);
      await writeFile(file, script);
      await chmod(file, 0o644);
      const d = dirs();
      const jobEnv = {
        HOME: d.home,
        PATH: [...path, '/usr/bin', '/bin'].join(':'),
        RUNNER_TEMP: d.temp,
        RUNNER_TOOL_CACHE: d.toolcache,
        GITHUB_WORKSPACE: d.workspace,
        GITHUB_OUTPUT: join(d.files, 'output'),
        GITHUB_STEP_SUMMARY: join(d.files, 'summary'),
        GITHUB_PATH: join(d.files, 'path'),
        CI: 'true',
        // The network's trust settings of this machine (its registry proxy's CA); a hosted image
        // trusts the public registries through its system store.
        ...Object.fromEntries(TRUST_ENV.filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
        ...env,
      };
      return exec(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          '--',
          'sh',
          '-c',
          // Hide this host's /usr/local/bin (Node 24, pnpm), then drop to nobody with the job's env.
          'mount -t tmpfs -o ro,size=4k none /usr/local/bin && cd "$0" && exec setpriv --reuid=65534 --regid=65534 --clear-groups -- env -i "$@"',
          d.workspace,
          ...Object.entries(jobEnv).map(([k, v]) => `${k}=${v}`),
          'bash',
          '--noprofile',
          '--norc',
          '-eo',
          'pipefail',
          file,
        ],
        { maxBuffer: 64 << 20, timeout: 600_000 },
      );
    }

    /**
     * Carries out a job's steps in order. Returns what each step printed; throws at the first step
     * that fails (as a job does), with its output.
     */
    async function runJob(name: string): Promise<string[]> {
      const d = dirs();
      const path: string[] = [];
      const logs: string[] = [];
      for (const step of workflow.jobs[name]!.steps) {
        const uses = step.uses?.split('@')[0];
        if (uses === 'actions/setup-node') {
          // setup-node: that Node from the tool cache, first on PATH for the steps after it.
          expect(String(step.with?.['node-version'])).toBe('24');
          path.unshift(join(d.toolcache, 'node/24/x64/bin'));
        } else if (uses === 'actions/checkout') {
          const into = join(d.workspace, String(step.with?.path ?? '.'));
          if (step.with?.repository) await copyWorkTree(into);
          else {
            // As the job's user, as actions/checkout runs.
            await exec('chown', ['-R', `${NOBODY}:${NOBODY}`, tmp]);
            await runStep('git clone -q "$SRC" "$DEST"', { SRC: join(tmp, 'data.git'), DEST: into }, path);
          }
        } else if (uses === 'actions/download-artifact') {
          await cp(d.artifacts, expand(String(step.with?.path)), { recursive: true });
        } else if (step.run !== undefined) {
          await exec('chown', ['-R', `${NOBODY}:${NOBODY}`, tmp]);
          const env = Object.fromEntries(
            Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v))]),
          );
          const r = await runStep(step.run, env, path);
          logs.push(r.stdout + r.stderr);
        } else throw new Error(`${name}: the test does not know the step ${step.uses ?? step.name}`);
      }
      return logs;
    }

    beforeAll(async () => {
      tmp = await mkdtemp('/var/tmp/rb-hosted-');
      await chmod(tmp, 0o755);
      const d = dirs();
      for (const dir of Object.values(d)) await mkdir(dir, { recursive: true });
      // setup-node's tool cache: this Node 24 binary (the distribution's npm and npx beside the old Node).
      await mkdir(join(d.toolcache, 'node/24/x64/bin'), { recursive: true });
      await copyFile(process.execPath, join(d.toolcache, 'node/24/x64/bin/node'));
      await chmod(join(d.toolcache, 'node/24/x64/bin/node'), 0o755);
      // The artifact of one target: a real result of data/, its summary and regression count.
      const runs = join(repoRoot, 'data/runs/2026/11/29');
      const run = (await readdir(runs)).filter((f) => f.endsWith('.json')).sort()[0]!;
      await mkdir(join(d.artifacts, 'runtime-bench-nightly'));
      await copyFile(join(runs, run), join(d.artifacts, 'runtime-bench-nightly/nightly.json'));
      await writeFile(join(d.artifacts, 'runtime-bench-nightly/nightly.md'), '## runtime-bench nightly\n');
      await writeFile(join(d.artifacts, 'runtime-bench-nightly/nightly.regressions'), '2\n');
      // The caller's repository: a bare repository with a default branch and no data branch yet.
      const src = join(tmp, 'caller');
      await mkdir(src);
      await writeFile(join(src, 'README.md'), 'caller\n');
      const g = (cwd: string, ...args: string[]) =>
        exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd });
      await g(src, 'init', '-q', '-b', 'main');
      await g(src, 'add', '-A');
      await g(src, 'commit', '-qm', 'caller');
      await g(tmp, 'clone', '-q', '--bare', src, join(tmp, 'data.git'));
    }, 120_000);

    afterAll(async () => {
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    test('the image has only the old Node: the action set-up refuses it, naming what is needed', async () => {
      await copyWorkTree(join(dirs().workspace, 'probe'));
      await exec('chown', ['-R', `${NOBODY}:${NOBODY}`, tmp]);
      const r = await runStep('node --version; bash probe/action/setup.sh', {}, []).catch(
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(r.stdout).toMatch(new RegExp(`^v${distroMajor}\\.`));
      expect((r as { code?: number }).code).toBe(1);
      expect(r.stderr).toContain(`Node.js 24 or later is needed on the runner (found ${distroMajor})`);
      await rm(join(dirs().workspace, 'probe'), { recursive: true, force: true });
    }, 120_000);

    test('report: sums the regressions and writes the summary with the image tools alone', async () => {
      await runJob('report');
      const d = dirs();
      expect(await readFile(join(d.files, 'output'), 'utf8')).toBe('regressions=2\n');
      expect(await readFile(join(d.files, 'summary'), 'utf8')).toBe('## runtime-bench nightly\n');
    }, 120_000);

    test('publish: sets up Node 24 and the dependencies as nobody, and commits the result to the data branch', async () => {
      const logs = await runJob('publish');
      expect(logs.join('\n')).toMatch(/published 1 run\(s\) to \S*benchmark-data/);
      const files = (
        await exec('git', [
          '-c',
          'safe.directory=*',
          '-C',
          join(tmp, 'data.git'),
          'ls-tree',
          '-r',
          '--name-only',
          'benchmark-data',
        ])
      ).stdout;
      expect(files).toMatch(/^data\/runs\/2026\/11\/29\/\S+\.json$/m);
    }, 900_000);
  },
);
