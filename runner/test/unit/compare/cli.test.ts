// The compare / check commands and the false-positive script as real processes on real files.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeResultFile } from '../../../src/results/io.ts';
import { CRUN, night, RUNC, syntheticRun } from './synthetic.ts';

const run = promisify(execFile);
const CLI = new URL('../../../bin/runtime-bench.js', import.meta.url).pathname;
const FP_SCRIPT = new URL('../../../bench/false-positive-rate.ts', import.meta.url).pathname;

async function cli(args: string[], script = CLI): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rb-cli-'));
  await writeResultFile(
    join(dir, 'one.json'),
    syntheticRun({
      seed: 1,
      startedAt: night(20),
      n: 15,
      targets: [RUNC, { ...CRUN, effect: { StartContainer: 0.75 } }],
    }),
  );
  for (let d = 1; d <= 12; d++)
    await writeResultFile(
      join(dir, 'history', '2026', '11', String(d).padStart(2, '0'), `run-${d}.json`),
      syntheticRun({ seed: 100 + d, startedAt: night(d), runSigma: 0.03 }),
    );
  await writeResultFile(
    join(dir, 'same.json'),
    syntheticRun({ seed: 200, startedAt: night(13), runSigma: 0.03 }),
  );
  await writeResultFile(
    join(dir, 'slow.json'),
    syntheticRun({
      seed: 201,
      startedAt: night(13),
      runSigma: 0.03,
      targets: [{ ...RUNC, effect: { StartContainer: 1.4 } }],
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runtime-bench compare', () => {
  test('two targets of one file: StartContainer of crun is better', async () => {
    const r = await cli([
      'compare',
      join(dir, 'one.json'),
      '--baseline-target',
      'containerd/runc',
      '--target',
      'containerd/crun',
    ]);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes('StartContainer'));
    expect(line).toMatch(/containerd\/runc → containerd\/crun/);
    expect(line).toMatch(/better$/);
  });

  test('json output is the report', async () => {
    const r = await cli([
      'compare',
      join(dir, 'one.json'),
      '--baseline-target',
      'containerd/runc',
      '--target',
      'containerd/crun',
      '--json',
    ]);
    const report = JSON.parse(r.stdout) as { kind: string; rows: { metric?: string; verdict: string }[] };
    expect(report.kind).toBe('runtime-bench.compare');
    expect(report.rows.find((row) => row.metric === 'StartContainer')!.verdict).toBe('better');
  });

  test('markdown output has a table', async () => {
    const r = await cli(['compare', join(dir, 'same.json'), join(dir, 'slow.json'), '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^### runtime-bench compare/);
    expect(r.stdout).toMatch(
      /\| operations\.container\.lifecycle \| containerd\/runc \| StartContainer \(↓ better\) \|.*\| worse \|/,
    );
  });

  test('one file without targets is a usage error listing the targets', async () => {
    const r = await cli(['compare', join(dir, 'one.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs --baseline-target and --target/);
    expect(r.stderr).toMatch(/hint: targets in .*: containerd\/runc, containerd\/crun/);
  });

  test('an unknown target is a usage error', async () => {
    const r = await cli([
      'compare',
      join(dir, 'one.json'),
      '--baseline-target',
      'containerd/runc',
      '--target',
      'cri-o/crun',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no target "cri-o\/crun" \(given by --target\)/);
  });

  test('--format json, the old spelling of --json, prints the same report and a note on stderr', async () => {
    const files = [join(dir, 'same.json'), join(dir, 'slow.json')];
    const old = await cli(['compare', ...files, '--format', 'json']);
    const now = await cli(['compare', ...files, '--json']);
    expect(old.code).toBe(0);
    expect(JSON.parse(old.stdout)).toEqual(JSON.parse(now.stdout));
    expect(old.stderr).toBe(
      'runtime-bench: --format json is deprecated and will be removed in the next release; use --json\n',
    );
    expect(now.stderr).toBe('');
  });

  test('a bad --format is refused by commander', async () => {
    const r = await cli(['compare', join(dir, 'same.json'), join(dir, 'slow.json'), '--format', 'html']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/argument 'html' is invalid. expected table or markdown \(JSON: --json\)/);
  });
});

describe('runtime-bench check', () => {
  test('an unchanged run passes, even with --fail-on-regression', async () => {
    const r = await cli([
      'check',
      '--history',
      join(dir, 'history'),
      '--current',
      join(dir, 'same.json'),
      '--fail-on-regression',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/0 new regression\(s\), 0 ongoing/);
    expect(r.stdout).toMatch(/history: 12 file\(s\), 12 comparable/);
  });

  test('a slower StartContainer fails the job with --fail-on-regression, and only then', async () => {
    const args = ['check', '--history', join(dir, 'history'), '--current', join(dir, 'slow.json')];
    const report = await cli([...args, '--json']);
    expect(report.code).toBe(0);
    const json = JSON.parse(report.stdout) as {
      counts: { regression: number };
      rows: { metric?: string; verdict: string }[];
    };
    expect(json.counts.regression).toBe(1);
    expect(json.rows.find((row) => row.metric === 'StartContainer')!.verdict).toBe('regression');
    const failing = await cli([...args, '--fail-on-regression', '--format', 'markdown']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/StartContainer .*\| regression \|/);
    expect(failing.stderr).toMatch(/1 new regression\(s\) in .*slow\.json/);
  });

  test('a per-metric threshold above the change lets it pass', async () => {
    const r = await cli([
      'check',
      '--history',
      join(dir, 'history'),
      '--current',
      join(dir, 'slow.json'),
      '--metric-threshold',
      'StartContainer=80',
      '--fail-on-regression',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/StartContainer.*80\.0 %.*ok/);
  });

  test("--reference: the rows of the other targets are read against it; an unknown id is a usage error naming the run's targets", async () => {
    const REF = { id: 'containerd/runc-1.2.6', oci: 'runc', version: '1.2.6' };
    const refDir = join(dir, 'reference');
    for (let d = 1; d <= 12; d++)
      await writeResultFile(
        join(refDir, 'history', `run-${d}.json`),
        syntheticRun({ seed: 300 + d, startedAt: night(d), runSigma: 0.03, targets: [RUNC, REF] }),
      );
    const current = join(refDir, 'slow.json');
    await writeResultFile(
      current,
      syntheticRun({
        seed: 400,
        startedAt: night(13),
        runSigma: 0.03,
        targets: [{ ...RUNC, effect: { StartContainer: 1.4 } }, REF],
      }),
    );
    const args = ['check', '--history', join(refDir, 'history'), '--current', current];
    const report = await cli([...args, '--reference', REF.id, '--json']);
    expect(report.stderr).toBe('');
    const rows = (
      JSON.parse(report.stdout) as {
        rows: {
          target: string;
          metric?: string;
          verdict: string;
          factorSource?: string;
          factorControls?: string[];
        }[];
      }
    ).rows;
    const start = rows.find((r) => r.target === RUNC.id && r.metric === 'StartContainer')!;
    expect(start.factorSource).toBe('reference');
    expect(start.factorControls).toEqual([REF.id]);
    expect(start.verdict).toBe('regression');
    const table = await cli([...args, '--reference', REF.id]);
    expect(table.stdout).toMatch(/reference: containerd\/runc-1\.2\.6/);
    const wrong = await cli([...args, '--reference', 'containerd/runc-1.2.7']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--reference containerd\/runc-1\.2\.7: no such target/);
    expect(wrong.stderr).toContain(`${RUNC.id}, ${REF.id}`);
  });

  test('an invalid file in the history fails with its name', async () => {
    const bad = join(dir, 'bad-history');
    await writeResultFile(join(bad, 'ok.json'), syntheticRun({ seed: 1, startedAt: night(1) }));
    await writeFile(join(bad, 'torn.json'), '{"schemaVersion": 1');
    const r = await cli(['check', '--history', bad, '--current', join(dir, 'same.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(bad, 'torn.json')}: not valid JSON`);
  });

  test('bad option values are usage errors', async () => {
    const r = await cli([
      'check',
      '--history',
      dir,
      '--current',
      join(dir, 'same.json'),
      '--metric-threshold',
      'StartContainer',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/METRIC=PERCENT/);
    // An infinite threshold would let a 10× slower run pass with exit 0.
    for (const value of ['Infinity', '1e400']) {
      const inf = await cli([
        'check',
        '--history',
        dir,
        '--current',
        join(dir, 'slow.json'),
        '--threshold',
        value,
      ]);
      expect(inf.code).toBe(2);
      expect(inf.stderr).toMatch(/--threshold.*finite percentage/);
    }
  });
});

describe('runtime-bench plan', () => {
  test("--reference plans the other targets divided by it; an unknown id names the history's targets", async () => {
    const REF = { id: 'containerd/runc-1.2.6', oci: 'runc', version: '1.2.6' };
    const history = join(dir, 'plan-history');
    for (let d = 1; d <= 6; d++)
      await writeResultFile(
        join(history, `run-${d}.json`),
        syntheticRun({ seed: 600 + d, startedAt: night(d), runSigma: 0.05, targets: [RUNC, REF] }),
      );
    const plan = await cli(['plan', '--history', history, '--reference', REF.id, '--json']);
    expect(plan.stderr).toBe('');
    const rows = (JSON.parse(plan.stdout) as { rows: { target: string; metric: string; note: string }[] })
      .rows;
    expect(rows.find((r) => r.target === RUNC.id && r.metric === 'StartContainer')!.note).toMatch(
      /divided by the reference containerd\/runc-1\.2\.6/,
    );
    const wrong = await cli(['plan', '--history', history, '--reference', 'containerd/crun']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--reference containerd\/crun: no run of .* has this target/);
    expect(wrong.stderr).toContain(`${RUNC.id}, ${REF.id}`);
  });
});

describe('false-positive-rate script', () => {
  test('unchanged runs: (almost) no flags; a changed run in the series is found', async () => {
    const clean = await cli([join(dir, 'history'), '--json'], FP_SCRIPT);
    expect(clean.code).toBe(0);
    const summary = JSON.parse(clean.stdout) as {
      runs: number;
      tests: number;
      flagged: number;
      falsePositiveRate: number;
    };
    expect(summary).toMatchObject({ runs: 12, tests: 48 });
    expect(summary.falsePositiveRate).toBeLessThanOrEqual(0.05);

    const mixed = join(dir, 'mixed');
    for (let d = 1; d <= 10; d++)
      await writeResultFile(
        join(mixed, `r${d}.json`),
        syntheticRun({
          seed: 100 + d,
          startedAt: night(d),
          runSigma: 0.03,
          targets: [{ ...RUNC, effect: d === 6 ? { StopContainer: 1.5 } : {} }],
        }),
      );
    const found = JSON.parse((await cli([mixed, '--json'], FP_SCRIPT)).stdout) as {
      perRun: { file: string; flags: { what: string; verdict: string }[] }[];
    };
    const flaggedRun = found.perRun.find((r) => r.file.endsWith('r6.json'))!;
    expect(flaggedRun.flags).toEqual([
      expect.objectContaining({ what: 'StopContainer', verdict: 'regression' }),
    ]);
  });

  test('rolling mode and the text summary', async () => {
    const r = await cli([join(dir, 'history'), '--mode', 'rolling'], FP_SCRIPT);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /rolling: \d+ of 36 tests flagged \(false-positive rate \d+\.\d %\); \d+ of 9 checked runs/,
    );
  });
});
