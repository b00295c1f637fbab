// action.yml is not a workflow, so actionlint does not read it: its structure, its inputs'
// plumbing and the docs table are checked here. The workflows are also scanned for shell
// interpolation of expressions (a script-injection hole).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { ActionInputsSchema, inputEnvNames } from '../src/inputs.ts';

const root = join(import.meta.dirname, '../..');
const exec = promisify(execFile);
const read = (p: string) => readFile(join(root, p), 'utf8');
const read_ = read;

const StepSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/)
    .optional(),
  name: z.string().min(1),
  if: z.string().optional(),
  shell: z.literal('bash'),
  env: z.record(z.string(), z.string()),
  run: z.string(),
});
const ActionSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1),
  author: z.string().optional(),
  branding: z.strictObject({ icon: z.string(), color: z.string() }).optional(),
  inputs: z.record(
    z.string().regex(/^[a-z][a-z0-9-]*$/),
    z.strictObject({ description: z.string().min(10), required: z.boolean(), default: z.string() }),
  ),
  outputs: z.record(z.string(), z.strictObject({ description: z.string().min(10), value: z.string() })),
  runs: z.strictObject({ using: z.literal('composite'), steps: z.array(StepSchema).min(1) }),
});

const action = ActionSchema.parse(parse(await read('action.yml')));

/**
 * The steps that receive each token: `token` reads the data branch (side-by-side, before the
 * stack is up; history) and pushes to it (publish); `github-token` opens and comments on the alert
 * issues (alert).
 */
const TOKEN_STEPS: Record<string, string[]> = {
  token: ['side-by-side', 'history', 'publish'],
  'github-token': ['alert'],
};

describe('action.yml', () => {
  test('inputs are exactly the ones the implementation reads, with the same defaults', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.keys(ActionInputsSchema.shape).sort());
    const defaults = ActionInputsSchema.parse({});
    for (const [name, input] of Object.entries(action.inputs)) {
      if (name === 'token') continue; // ${{ github.token }}: only the runner can fill it in
      expect([name, String(defaults[name as keyof typeof defaults])]).toEqual([name, input.default]);
    }
  });

  test('every step receives every input through env: (each token only its steps), and runs our entry point', () => {
    for (const step of action.runs.steps.slice(1)) {
      for (const name of Object.keys(action.inputs)) {
        const envName = inputEnvNames(name)[1]!;
        const expected =
          name in TOKEN_STEPS && !TOKEN_STEPS[name]!.includes(step.id ?? '')
            ? undefined
            : `\${{ inputs.${name} }}`;
        expect(step.env[envName], `${step.name}: ${envName}`).toBe(expected);
      }
      expect(step.run).toMatch(
        /^node "\$ACTION_PATH\/action\/src\/main\.ts" (install|side-by-side|up|run|history|summary|bisect|publish|alert|cleanup)$/,
      );
    }
    expect(action.runs.steps.at(-1)).toMatchObject({ id: 'cleanup', if: 'always()' });
  });

  test('the tokens reach their steps alone (token: side-by-side, history, publish; github-token: alert; none where the stack or the benchmark runs), under no name and in no expression elsewhere', () => {
    const holders = action.runs.steps
      .filter((step) =>
        Object.entries(step.env).some(
          ([name, value]) =>
            /token/i.test(name) || /inputs\.(github-)?token|github\.token|secrets\./.test(value),
        ),
      )
      .map((step) => step.id);
    const tokenSteps = Object.values(TOKEN_STEPS).flat();
    expect(holders.sort()).toEqual([...tokenSteps].sort());
    for (const [name, steps] of Object.entries(TOKEN_STEPS)) {
      const envName = inputEnvNames(name)[1]!;
      expect(
        action.runs.steps.filter((step) => envName in step.env).map((step) => step.id),
        name,
      ).toEqual(steps);
    }
    const ids = action.runs.steps.map((s) => s.id);
    // side-by-side reads the branch before the stack is up (it starts nothing); the others after the run.
    expect(ids.indexOf('side-by-side')).toBeLessThan(ids.indexOf('up'));
    for (const id of tokenSteps.filter((id) => id !== 'side-by-side'))
      expect(ids.indexOf(id)).toBeGreaterThan(ids.indexOf('run'));
    for (const step of action.runs.steps) expect(step.run, step.name).not.toMatch(/token|\$\{\{/i);
  });

  test('outputs come from steps that exist', () => {
    const ids = new Set(action.runs.steps.map((s) => s.id));
    for (const [name, out] of Object.entries(action.outputs)) {
      const m = /^\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}$/.exec(out.value);
      expect(m, name).not.toBeNull();
      expect(ids.has(m![1]), `${name} → ${m![1]}`).toBe(true);
    }
  });

  test('docs/action.md lists every input and output with its description and default', async () => {
    const doc = await read('docs/action.md');
    // The table rows of the page's "## Inputs" and "## Outputs" sections only (other sections
    // have tables of their own). Cells trimmed (prettier pads table columns); escaped pipes stay
    // inside their cell.
    const section = (heading: string): string[] => {
      const lines = doc.split('\n');
      const start = lines.indexOf(heading);
      expect(start, heading).toBeGreaterThanOrEqual(0);
      const end = lines.findIndex((l, i) => i > start && /^#{1,3} /.test(l));
      return lines.slice(start + 1, end < 0 ? undefined : end);
    };
    const rows = [...section('## Inputs'), ...section('## Outputs')]
      .filter((l) => l.startsWith('| `'))
      .map((l) =>
        l
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replace(/\\\|/g, '|')),
      );
    const expected = [
      ...Object.entries(action.inputs).map(([n, i]) => [
        `\`${n}\``,
        i.description,
        i.default === '' ? '' : `\`${i.default}\``,
      ]),
      ...Object.entries(action.outputs).map(([n, o]) => [`\`${n}\``, o.description]),
    ];
    expect(rows).toEqual(expected);
  });
});

/** Every `run:` script of a YAML document (steps of jobs, or of a composite action). */
function runScripts(doc: unknown): { where: string; run: string }[] {
  const out: { where: string; run: string }[] = [];
  const visit = (node: unknown, where: string) => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${where}[${i}]`));
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'run' && typeof v === 'string') out.push({ where, run: v });
        else visit(v, `${where}.${k}`);
      }
    }
  };
  visit(doc, '');
  return out;
}

describe('no expression is interpolated into a shell script', async () => {
  const files = [
    'action.yml',
    ...(await readdir(join(root, '.github/workflows'))).map((f) => `.github/workflows/${f}`),
    ...(await readdir(join(root, 'workflows'))).map((f) => `workflows/${f}`),
  ].filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'));

  test('there are workflows to check', () => expect(files.length).toBeGreaterThanOrEqual(5));

  test.each(files)('%s', async (file) => {
    const scripts = runScripts(parse(await read(file)));
    for (const { where, run } of scripts) expect(run, `${file} ${where}`).not.toMatch(/\$\{\{/);
  });

  test('the check itself catches an interpolation', () => {
    const bad = runScripts(parse('jobs:\n  a:\n    steps:\n      - run: echo "${{ inputs.x }}"\n'));
    expect(bad.some((s) => /\$\{\{/.test(s.run))).toBe(true);
  });

  test.each(files.filter((f) => f !== 'action.yml'))(
    '%s pins third-party actions by commit SHA with a version comment',
    async (file) => {
      const text = await read(file);
      for (const line of text
        .split('\n')
        .filter((l) => /uses:\s*[\w-]+\/[\w.-]+@/.test(l) && !l.includes('runtime-bench/runtime-bench'))) {
        expect(line).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
      }
    },
  );
});

describe('the docs show the callers the act tests run, verbatim', () => {
  // The README shows the shortest nightly; docs/action.md both callers.
  test.each([
    ['README.md', 'workflows/nightly.yml'],
    ['docs/action.md', 'workflows/nightly.yml'],
    ['docs/action.md', 'workflows/cluster-nightly.yml'],
  ])('%s shows %s', async (page, caller) => {
    const [doc, workflow] = await Promise.all([read(page), read(caller)]);
    expect(doc).toContain(`\`\`\`yaml\n${workflow}\`\`\``);
  });
});

describe('reusable workflow', async () => {
  const wf = parse(await read('.github/workflows/runtime-bench.yml')) as {
    on: Record<string, unknown>;
    permissions: Record<string, string>;
    jobs: Record<
      string,
      { permissions?: Record<string, string>; concurrency?: unknown; strategy?: { matrix?: unknown } }
    >;
  };
  test('is called with workflow_call, least privilege, one publishing job with a concurrency group', () => {
    expect(Object.keys(wf.on)).toEqual(['workflow_call']);
    expect(wf.permissions).toEqual({ contents: 'read' });
    const writers = Object.entries(wf.jobs).filter(([, j]) => j.permissions?.contents === 'write');
    expect(writers.map(([n]) => n)).toEqual(['publish']);
    expect(writers[0]![1].concurrency).toMatchObject({
      group: expect.stringContaining('publish'),
      'cancel-in-progress': false,
    });
    expect(wf.jobs.bench!.strategy!.matrix).toEqual({ target: '${{ fromJSON(inputs.targets) }}' });
  });

  test('cluster mode: a mode input, the kubeconfig secret reaches the action only through with:', async () => {
    const text = await read('.github/workflows/runtime-bench.yml');
    const call = wf.on.workflow_call as {
      inputs: Record<string, { default?: unknown }>;
      secrets: Record<string, { required: boolean }>;
    };
    expect(call.inputs.mode!.default).toBe('stack');
    expect(call.secrets).toEqual({
      kubeconfig: expect.objectContaining({ required: false }),
      'alert-token': expect.objectContaining({ required: false }),
    });
    // Every mention of the secret, by line: the mode check's boolean, and the action's with:.
    expect(
      text
        .split('\n')
        .filter((l) => l.includes('secrets.kubeconfig'))
        .map((l) => l.trim()),
    ).toEqual([
      "HAS_KUBECONFIG: ${{ secrets.kubeconfig != '' }}",
      "kubeconfig: ${{ inputs.mode == 'cluster' && secrets.kubeconfig || '' }}",
    ]);
    const steps = (wf.jobs.bench as unknown as { steps: { uses?: string; with?: Record<string, string> }[] })
      .steps;
    const action = steps.find((s) => s.uses === './.runtime-bench-action')!;
    for (const name of ['kubeconfig', 'runtime-classes', 'nodes', 'image', 'image-pull-policy'])
      expect(Object.keys(action.with!), name).toContain(name);
  });

  test('"Keep the result" names one result <target>.json and several <target>.<node>.json', async () => {
    const steps = (wf.jobs.bench as unknown as { steps: { name?: string; run?: string }[] }).steps;
    const script = steps.find((s) => s.name === 'Keep the result')!.run!;
    const tmp = await mkdtemp(join(tmpdir(), 'rb-keep-'));
    try {
      const keep = async (results: string[], dir: string, bisectReports = '') => {
        await mkdir(join(tmp, dir), { recursive: true });
        for (const f of results) await writeFile(f, f);
        await exec('bash', ['-euo', 'pipefail', '-c', script], {
          env: {
            PATH: process.env.PATH,
            RUNNER_TEMP: join(tmp, dir),
            RESULT: results[0],
            RESULTS: results.join('\n'),
            SUMMARY: '',
            REGRESSIONS: '',
            TARGET: 'gke',
            ...(bisectReports ? { BISECT_REPORTS: bisectReports } : {}),
          },
        });
        return (await readdir(join(tmp, dir, 'rb-artifact'))).sort();
      };
      expect(await keep([join(tmp, 'result.json')], 'one')).toEqual(['gke.json', 'gke.regressions']);
      expect(
        await keep([join(tmp, 'result.pool-a-1.json'), join(tmp, 'result.pool-b-7.json')], 'two'),
      ).toEqual(['gke.pool-a-1.json', 'gke.pool-b-7.json', 'gke.regressions']);
      // A bisection's runs directory (its looks' runs and the report) goes along; one that wrote
      // no runs directory adds nothing.
      const runs = join(tmp, 'work/bisect-1.runs/bisections');
      await mkdir(runs, { recursive: true });
      await writeFile(join(runs, 'r.json'), '{}');
      expect(
        await keep(
          [join(tmp, 'result.json')],
          'bisected',
          `${join(tmp, 'work/bisect-1.json')}\n${join(tmp, 'work/bisect-2.json')}\n`,
        ),
      ).toEqual(['gke.bisect-1.runs', 'gke.json', 'gke.regressions']);
      expect(await readdir(join(tmp, 'bisected/rb-artifact/gke.bisect-1.runs/bisections'))).toEqual([
        'r.json',
      ]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  const benchSteps = (
    wf.jobs.bench as unknown as {
      steps: { name?: string; run?: string; uses?: string; with?: Record<string, string> }[];
    }
  ).steps;
  const actionStep = benchSteps.find((s) => s.uses === './.runtime-bench-action')!;

  test('the bench job passes every input of the action, but the deliberate exceptions', () => {
    // token: the action's default, the job's own read-only token (the publish job pushes).
    const exceptions = ['token'];
    expect(Object.keys(actionStep.with!).sort()).toEqual(
      Object.keys(action.inputs)
        .filter((n) => !exceptions.includes(n))
        .sort(),
    );
    // The publish job publishes, once for all targets: the action never does in this workflow.
    expect(actionStep.with!.publish).toBe("'false'".slice(1, -1));
    // The alert token is a secret of the call, handed on only when alerts are asked for.
    expect(actionStep.with!['github-token']).toBe("${{ inputs.alert-issue && secrets.alert-token || '' }}");
    // Workflow-wide inputs reach the action under their own name.
    for (const name of [
      'regression-threshold',
      'bisect-on-regression',
      'bisect-budget',
      'data-branch',
      'fail-on-regression',
      'suites',
      'runs',
      'site-url',
      'alert-issue',
    ])
      expect(actionStep.with![name], name).toBe(`\${{ inputs.${name} }}`);
  });

  test('the target check knows exactly the keys the workflow reads of a target, and fails naming an unknown one', async () => {
    const script = benchSteps.find((s) => s.name === "Check the target's keys")!.run!;
    const read = new Set(
      [...(await read_('.github/workflows/runtime-bench.yml')).matchAll(/matrix\.target\.([a-z-]+)/g)].map(
        (m) => m[1]!,
      ),
    );
    const known = JSON.parse(/const known = (\[[^\]]*\])/.exec(script)![1]!) as string[];
    expect(known.sort()).toEqual([...read].sort());
    const check = (target: object) =>
      exec('bash', ['-euo', 'pipefail', '-c', script], {
        env: { PATH: process.env.PATH, TARGET: JSON.stringify(target) },
      }).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
      );
    expect(await check({ name: 'n', 'runs-on': ['self-hosted'], 'oci-runtimes': 'runc@latest' })).toEqual({
      code: 0,
      stdout: '',
    });
    const misspelt = await check({ name: 'n', 'runs-on': ['self-hosted'], 'oci-runtime': 'crun@latest' });
    expect(misspelt.code).toBe(1);
    expect(misspelt.stdout).toMatch(
      /^::error title=runtime-bench::unknown key\(s\) oci-runtime in a target of targets/,
    );
  });

  test('the cluster caller calls it in cluster mode and passes the secret as secrets:', async () => {
    const caller = parse(await read('workflows/cluster-nightly.yml')) as {
      jobs: { bench: { uses: string; with: Record<string, unknown>; secrets: Record<string, string> } };
    };
    expect(caller.jobs.bench.uses).toMatch(/\/\.github\/workflows\/runtime-bench\.yml@v1$/);
    expect(caller.jobs.bench.with.mode).toBe('cluster');
    expect(caller.jobs.bench.secrets).toEqual({ kubeconfig: '${{ secrets.RUNTIME_BENCH_KUBECONFIG }}' });
  });
});
