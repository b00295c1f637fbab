// The hostile-input corpus: sweep specs, bisect flags, install specs, engine/image/stack configs,
// release-API and module-proxy answers, and data-branch files, each run through the real CLI on
// its cheap paths (validate, --dry-run, refusals before anything starts; loopback servers and
// local repositories only). Every run: exit code not 70, no stack trace, the output naming the
// field, the word or the file; a skipped file never written out. The count is printed, per kind.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadResultDir } from '../../../src/results/read-dir.ts';
import { CLI, isolatedEnv, NODE, WORKSPACE_ROOT, type CliResult } from '../publish/helpers.ts';
import { bisectCases, configCases, installCases, sweepCases, type CorpusCase } from './corpus-cases.ts';
import { proxyCases, releaseCases, startAnswerServer, type AnswerServer } from './corpus-answers.ts';
import { branchCases } from './corpus-branch.ts';

const DATA_RUNS = join(WORKSPACE_ROOT, 'data', 'runs');
/** The newest nightly run of data/runs: the `--current` of `data history`. */
const CURRENT = loadResultDir(DATA_RUNS, { code: 'T', title: () => 'data/runs', hint: '' })
  .filter((r) => r.run.targets.every((t) => t.id.startsWith('nightly-ctl/')))
  .at(-1)!;

/** A stack frame of a crash (what the CLI prints for anything but an RbError). */
const TRACE = /^\s{4}at /m;
/** Runs at once: the machine has 2 cores, each run is a short node process. */
const PARALLEL = 4;

const dir = mkdtempSync(join(tmpdir(), 'rb-corpus-'));
const env = isolatedEnv(dir);
let server: AnswerServer;
let cases: CorpusCase[];
const outputs = new Map<string, Promise<CliResult>>();

/** Runs `run` with at most PARALLEL at a time. */
const slots: (() => void)[] = [];
let busy = 0;
async function limited<T>(run: () => Promise<T>): Promise<T> {
  if (busy >= PARALLEL) await new Promise<void>((resolve) => slots.push(resolve));
  busy++;
  try {
    return await run();
  } finally {
    busy--;
    slots.shift()?.();
  }
}

/**
 * Every input here is refused or skipped within seconds; one that runs on was accepted by
 * mistake: it is interrupted as a user would (SIGINT, so it cleans up) and reported.
 */
const RUN_DEADLINE_MS = 60_000;

/** Runs the real CLI to its end, or interrupts it at the deadline (code null then). */
function runCli(args: readonly string[], runEnv: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, ...args], { cwd: dir, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let late = false;
    const deadline = setTimeout(() => ((late = true), child.kill('SIGINT')), RUN_DEADLINE_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code: late ? null : code, stdout, stderr });
    });
  });
}

/** The CLI run of a case (one run for the cases that share one). */
function outputOf(c: CorpusCase): Promise<CliResult> {
  const key = c.shared ?? `${c.kind}\u0000${c.name}\u0000${c.args.join('\u0000')}`;
  let run = outputs.get(key);
  if (!run) {
    run = limited(() => runCli(c.args, { ...env, ...c.env }));
    outputs.set(key, run);
  }
  return run;
}

/** Every file under `out`, by base name. */
const writtenNames = (out: string): string[] => {
  try {
    return readdirSync(out, { recursive: true }).map((p) => basename(String(p)));
  } catch {
    return [];
  }
};

beforeAll(async () => {
  server = await startAnswerServer();
  cases = [
    ...sweepCases(dir),
    ...bisectCases(dir),
    ...installCases(),
    ...configCases(dir),
    ...releaseCases(server, dir),
    ...proxyCases(server, dir),
    ...branchCases(dir, DATA_RUNS, CURRENT),
  ];
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the hostile-input corpus through the real CLI', () => {
  test('every input: not exit 70, no stack trace, the field named; nothing skipped is written', async () => {
    const failures: string[] = [];
    const byKind = new Map<string, number>();
    await Promise.all(
      cases.map(async (c) => {
        byKind.set(c.kind, (byKind.get(c.kind) ?? 0) + 1);
        const r = await outputOf(c);
        const output = `${r.stderr}\n${r.stdout}`;
        const problems = [
          r.code === 70 && 'exit 70',
          r.code === null && `still running after ${RUN_DEADLINE_MS / 1000} s, or killed by a signal`,
          TRACE.test(r.stderr) && 'a stack trace',
          c.succeeds ? r.code !== 0 && `exit ${r.code}, not 0` : r.code === 0 && 'accepted (exit 0)',
          ...c.names
            .filter((n) => (typeof n === 'string' ? !output.includes(n) : !n.test(output)))
            .map((n) => `no ${String(n)} in the output`),
          c.unwritten !== undefined &&
            writtenNames(join(dir, 'results', 'out')).includes(basename(c.unwritten)) &&
            `${c.unwritten} was written out`,
        ].filter((p): p is string => typeof p === 'string');
        if (problems.length > 0)
          failures.push(
            `${c.kind}: ${c.name}: ${problems.join('; ')}\n  $ runtime-bench ${c.args.join(' ').slice(0, 300)}\n  ${output.trim().slice(0, 600).replace(/\n/g, '\n  ')}`,
          );
      }),
    );
    const summary = [...byKind].map(([kind, n]) => `${n} ${kind}`).join(', ');
    console.log(
      `hostile-input corpus: ${cases.length} malformed inputs (${summary}) in ${outputs.size} CLI runs; ${failures.length} failed`,
    );
    expect(failures).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(200);
  }, 600_000);
});
