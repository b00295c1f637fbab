// CRI and engine targets in one config, end to end: a private containerd stack with runc and
// Docker's private dockerd with the same runc, `startup.latency` and `engine.startup.latency`
// interleaved in one run. One complete result document holds both kinds' targets, every
// repetition of the engine benchmark ran between those of its CRI-level counterpart, the run's
// end and `compare <file>` print the engine overhead over the CRI-level runc, and nothing of the
// engine run is left; a SIGINT mid-run stops both kinds (exit 130, one incomplete document) and
// leaves no pod and nothing of the engine. Budget: stack up (≈ 30 s), per run image build and
// dockerd start (≈ 20 s) and 2 targets × 2–4 repetitions of 3 containers (≈ 15 s), stack down.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema } from '@runtime-bench/schemas';
import { engineOverhead } from '../../src/overhead/engine-runs.ts';
import { ENGINES_DIR } from '../../src/engine/kind.ts';
import { runCli } from '../support/cli.ts';
import { mountsUnder, onPath, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';

const BUDGET = 600_000;
const unavailable =
  realStackUnavailable() ??
  (['docker', 'dockerd'].some((c) => !onPath(c))
    ? 'missing on PATH: docker, dockerd (apt-get install docker.io)'
    : null);
if (unavailable) console.warn(`SKIPPED the engine-overhead run: ${unavailable}`);
const stack = testStackName('rb-ovh');
const work = mkdtempSync(join(tmpdir(), 'rb-ovh-'));

/** The stack's runc beside Docker's runc, startup.latency and its engine counterpart, 3 containers each. */
function mixedConfig(name: string, runs: number): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
targets:
  - { stack: ${stack}, handlers: [runc] }
  - { kind: engine, engine: docker, runtimes: [runc] }
benchmarks: [startup.latency, engine.startup.latency]
runs: ${runs}
warmup: 1
parameters:
  startup.latency: { count: 3 }
`,
  );
  return file;
}

/** Nothing of the engine side of a run is left: its private root, mounts, daemons. */
function expectEngineGone(runId: string): void {
  const root = join(ENGINES_DIR, runId.slice(-8));
  expect(readdirSync(ENGINES_DIR).includes(runId.slice(-8))).toBe(false);
  expect(mountsUnder(root)).toEqual([]);
  expect(processesUnder(root)).toEqual([]);
}

beforeAll(async () => {
  if (unavailable) return;
  const up = await runCli(['stack', 'up', '--stack', stack]);
  expect(up.code, up.stderr).toBe(0);
}, BUDGET);

afterAll(async () => {
  if (unavailable) return;
  const down = await runCli(['stack', 'down', '--stack', stack]);
  expect(down.code, down.stderr).toBe(0);
  // the runs removed every pod they made, also the interrupted one
  expect(`${down.stdout}${down.stderr}`).toContain('0 pod(s) removed');
}, BUDGET);

describe.skipIf(unavailable !== null)('CRI and engine targets in one run', () => {
  test(
    'one document, interleaved repetitions, the engine overhead printed, nothing left',
    async () => {
      const config = mixedConfig('mixed', 3);
      const dataDir = join(work, 'data');
      const r = await runCli(['run', '--config', config, '--data-dir', dataDir]);
      expect(r.code, r.stderr).toBe(0);
      const file = /written to (\S+\.json)/.exec(`${r.stdout}\n${r.stderr}`)![1]!;
      const run = RunResultSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      expect(run.status).toBe('complete');
      expect(run.targets.map((t) => `${t.id}:${t.transport}`).sort()).toEqual([
        'containerd/runc:grpc',
        'docker/runc:engine',
      ]);
      expect(run.results.map((x) => `${x.benchmark}:${x.status}`).sort()).toEqual([
        'engine.startup.latency:ok',
        'startup.latency:ok',
      ]);
      // progress lines: each engine repetition right after the CRI-level one of the same number
      const order = `${r.stdout}\n${r.stderr}`
        .split('\n')
        .filter((l) => /startup\.latency\s+run \d/.test(l))
        .map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '));
      expect(order).toEqual(
        Array.from({ length: 4 }, () => [
          'containerd/runc startup.latency',
          'docker/runc engine.startup.latency',
        ]).flat(),
      );
      // the overhead, from the file, as the end of the run and compare print it
      const rows = engineOverhead([run]).filter((x) => x.metric === 'latency_median');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        engineTarget: 'docker/runc',
        criTarget: 'containerd/runc',
        sameRun: true,
      });
      expect(rows[0]!.engine.n).toBe(3);
      expect(rows[0]!.cri.n).toBe(3);
      const said = `${r.stdout}\n${r.stderr}`;
      expect(said).toContain('docker/runc (docker ');
      expect(said).toContain('engine overhead on engine.startup.latency latency_median = ');
      const compare = await runCli(['compare', file, '--json']);
      expect(compare.code, compare.stderr).toBe(0);
      const report = JSON.parse(compare.stdout) as { rows: unknown[]; engineOverhead: { metric: string }[] };
      expect(report.rows).toEqual([]);
      expect(report.engineOverhead.map((x) => x.metric)).toContain('latency_median');
      expectEngineGone(run.runId);
    },
    BUDGET,
  );

  test(
    'SIGINT mid-run: exit 130, both kinds interrupted in one incomplete document, nothing left',
    async () => {
      const out = join(work, 'mixed-int.json');
      let sent = false;
      const r = await runCli(['run', '--config', mixedConfig('mixed-int', 50), '--out', out], {
        onStderr: (text, child) => {
          if (!sent && /docker\/runc\s+engine\.startup\.latency\s+run 2\/51: ok/.test(text)) {
            sent = true;
            child.kill('SIGINT');
          }
        },
      });
      expect(sent, r.stderr).toBe(true);
      expect(r.code, r.stderr).toBe(130);
      const run = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(run.status).toBe('incomplete');
      expect(run.incompleteReason).toBe('interrupted by SIGINT');
      expect(run.targets.map((t) => t.transport).sort()).toEqual(['engine', 'grpc']);
      expect(run.results.map((x) => x.status)).toEqual(['interrupted', 'interrupted']);
      for (const x of run.results) expect(x.attempts).toBeGreaterThanOrEqual(1);
      expectEngineGone(run.runId);
    },
    BUDGET,
  );
});
