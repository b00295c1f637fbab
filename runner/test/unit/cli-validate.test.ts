// `runtime-bench validate`: configs (YAML) and results (JSON), told apart by extension and
// content, each error naming the file and the field. The real CLI on real and written files.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { detectKind } from '../../src/config/detect.ts';
import { runCli } from './../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rb-validate-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const EXAMPLES = join(import.meta.dirname, '../../../examples');
const SWEEP = join(import.meta.dirname, '../../../data/runs/2026/11/27/20261127T012001Z-7f696e85.json');
const RESULT = join(import.meta.dirname, '../../../data/runs/2026/11/23/20261123T072835Z-8aa322b5.json');

describe('detectKind', () => {
  test.each([
    ['c.yaml', 'runs: 3\n', 'config'],
    ['c.yml', '{"runs": 3}', 'config'],
    ['c.conf', 'runs: 3\n', 'config'],
    ['c.json', '{"runs": 3}', 'config'],
    ['r.json', '{"schemaVersion": 1, "runId": "x"}', 'result'],
    ['r.txt', '{"results": []}', 'result'],
    ['r.json', 'runs: 3\n', 'result'],
    ['r.json', '[1, 2]', 'result'],
    ['b.json', '{"schemaVersion": 2, "outcome": "found", "steps": []}', 'bisection'],
    ['b.json', '{"runId": "x", "outcome": "found", "steps": []}', 'result'],
  ])('%s %j → %s', (path, text, kind) => expect(detectKind(path, text)).toBe(kind));
});

describe('validate', { timeout: 60_000 }, () => {
  test('every example config and a published result are valid', async () => {
    const examples = readdirSync(EXAMPLES)
      // cluster-rbac.yaml is a Kubernetes manifest (RBAC for cluster mode), not a run config.
      .filter((f) => f.endsWith('.yaml') && f !== 'cluster-rbac.yaml')
      .map((f) => join(EXAMPLES, f));
    expect(examples.length).toBeGreaterThan(5);
    const r = await runCli(['validate', ...examples, RESULT]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const e of examples) expect(r.stdout).toContain(`ok       ${e} (config)`);
    expect(r.stdout).toContain(`ok       ${RESULT} (20261123T072835Z-8aa322b5, complete)`);
  });

  test('a published version-4 run that says complete while a target measured nothing is stated partial', async () => {
    // The containerd sweep: containerd-2.0.14/runc failed all its attempts; the file stays as written.
    const r = await runCli(['validate', SWEEP]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(SWEEP, 'utf8'))).toMatchObject({ schemaVersion: 4, status: 'complete' });
    expect(r.stdout).toContain(`ok       ${SWEEP} (20261127T012001Z-7f696e85, partial)`);
  });

  test('a bisection report: the two of 2026-11-27 in data/bisections are valid (version 1); a malformed one names the field, exit 2', async () => {
    const dir = join(import.meta.dirname, '../../../data/bisections/2026/11/27');
    const reports = readdirSync(dir).map((f) => join(dir, f));
    const ok = await runCli(['validate', ...reports]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(
      `ok       ${join(dir, '20261127T005709Z-runc-1.1.10-1.2.0-StartContainer.json')} (bisection 20261127T005709Z-runc-1.1.10-1.2.0-StartContainer, failed)`,
    );
    const doc = JSON.parse(readFileSync(reports[0]!, 'utf8')) as { steps: { verdict: string }[] };
    doc.steps[1]!.verdict = 'probably';
    const bad = file('bad-bisection.json', JSON.stringify({ ...doc, schemaVersion: 3 }));
    const wrongVersion = file('v9-bisection.json', JSON.stringify({ ...doc, schemaVersion: 9 }));
    const broken = file('steps-bisection.json', JSON.stringify(doc));
    const r = await runCli(['validate', bad, wrongVersion, broken]);
    expect(r.code).toBe(2);
    // As version 3 it lacks version 2's and 3's fields; as version 1 its verdict is wrong.
    expect(r.stdout).toContain(`${bad}: tool.gitCommit: Invalid input`);
    expect(r.stdout).toContain(
      `${wrongVersion}: schemaVersion 9 is not a bisection report version this runtime-bench reads (1, 2, 3)`,
    );
    expect(r.stdout).toContain(`${broken}: steps[1].verdict: Invalid option`);
    expect(r.stderr).toContain('3 of 3 file(s) invalid');
  });

  test('a bad config: one line per problem, each with the path of the field; exit 2', async () => {
    const bad = file(
      'bad.yaml',
      'runs: zero\nparameters:\n  performance.cpu: { threads: -1 }\ntargets:\n  - handlers: [runc, runc]\n',
    );
    const r = await runCli(['validate', bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`${bad}: runs: Invalid input: expected number, received string`);
    expect(r.stdout).toContain(`${bad}: parameters["performance.cpu"].threads: Too small`);
    expect(r.stdout).toContain(`${bad}: targets[0].handlers[1]: "runc" repeats handlers[0]`);
    expect(r.stdout).not.toContain('not valid JSON');
    expect(r.stderr).toContain('1 of 1 file(s) invalid');
  });

  test('YAML syntax and an unknown key in a config', async () => {
    const syntax = file('syntax.yaml', 'targets: [\n  - stack: x\n');
    const unknown = file('unknown.yml', 'runz: 3\n');
    const r = await runCli(['validate', syntax, unknown]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`${syntax}: not valid YAML`);
    expect(r.stdout).toContain('Unrecognized key: "runz"');
    expect(r.stderr).toContain('2 of 2 file(s) invalid');
  });

  test('--json: each file with its kind, a good config next to a broken result', async () => {
    const good = file('good.yaml', 'benchmarks: [operations]\nruns: 5\n');
    const broken = file('broken.json', '{"schemaVersion": 1, "runId": 3}');
    const r = await runCli(['validate', '--json', good, broken]);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { file: string; kind: string; ok: boolean; error?: string }[];
    expect(report.map(({ file: f, kind, ok }) => ({ f, kind, ok }))).toEqual([
      { f: good, kind: 'config', ok: true },
      { f: broken, kind: 'result', ok: false },
    ]);
    expect(report[1]!.error).toContain(broken);
  });
});
