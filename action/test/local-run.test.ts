// The action's steps run locally exactly as the runner runs them: `node action/src/main.ts
// <step>` with INPUT_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files. Source "path"
// (the host's containerd and runc) keeps it offline; the stack is a private one named for the test.
import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { readResultFile } from '@runtime-bench/runner';

const run = promisify(execFile);
const has = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const main = join(import.meta.dirname, '../src/main.ts');
// Suffixed like the runner's integration stacks, so parallel checkouts never share a stack.
const stackName = `action-local-test${process.env.RB_TEST_STACK_SUFFIX ?? ''}`;
const reason =
  process.getuid?.() !== 0
    ? 'needs root'
    : !(await has('/usr/bin/containerd')) || !(await has('/usr/sbin/runc'))
      ? 'needs containerd and runc'
      : null;
if (reason) console.warn(`action local-run test skipped: ${reason}`);

describe.runIf(reason === null)('action steps, run locally', () => {
  let work = '';
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('install → up → run → summary → cleanup produce a valid result and a job summary', async () => {
    work = await mkdtemp('/var/tmp/rb-action-');
    const files = { output: join(work, 'output'), summary: join(work, 'step-summary.md') };
    await writeFile(files.output, '');
    await writeFile(files.summary, '');
    await writeFile(
      join(work, 'bench.yaml'),
      'name: action-local\nbenchmarks: [operations.container.lifecycle]\nwarmup: 0\n',
    );
    const env = {
      ...process.env,
      RUNNER_TEMP: work,
      GITHUB_WORKSPACE: work,
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      INPUT_SOURCE: 'path',
      INPUT_CRI_VERSION: 'latest',
      'INPUT_OCI-RUNTIMES': 'runc',
      INPUT_CONFIG: 'bench.yaml',
      INPUT_RUNS: '2',
      INPUT_STACK_NAME: stackName,
      INPUT_PUBLISH: 'false',
    };
    const step = (name: string) => run(process.execPath, [main, name], { env, maxBuffer: 64 * 1024 * 1024 });
    try {
      for (const name of ['install', 'up', 'run', 'summary']) {
        const { stdout } = await step(name);
        expect(stdout, name).not.toMatch(/^::error::/m);
      }
    } finally {
      await step('cleanup');
    }
    const outputs = await readFile(files.output, 'utf8');
    const resultPath = join(work, 'runtime-bench', 'result.json');
    expect(outputs).toContain(`result-path<<`);
    expect(outputs).toContain(resultPath);
    expect(outputs).toMatch(/regressions<<\S+\n0\n/);
    const result = await readResultFile(resultPath);
    // Asked for at no version ("what is there"): a name that survives a version change; the version
    // is in the result.
    expect(result.targets.map((t) => [t.id, t.handler])).toEqual([
      ['containerd-latest/runc-latest', 'runc-latest'],
    ]);
    expect(result.targets[0]!.oci.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(result.results.length).toBeGreaterThan(0);
    const summary = await readFile(files.summary, 'utf8');
    expect(summary).toContain('<h2>operations.container.lifecycle</h2>');
    expect(summary).toContain(result.runId);
    expect(await readFile(join(work, 'runtime-bench', 'summary.md'), 'utf8')).toContain(
      '## operations.container.lifecycle',
    );
    // Cleanup stopped the stack and removed the record.
    expect(await has(join(work, 'runtime-bench', 'install.json'))).toBe(false);
    expect(await has(`/var/lib/runtime-bench/stacks/${stackName}/containerd.pid`)).toBe(false);
  }, 600_000);
});
