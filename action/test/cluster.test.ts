// The cluster mode's input checks and run config (pure), and its steps' file handling with the
// CLI left out (the real run under act: action/test/act/cluster-mode.ts).
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { RbError } from '@runtime-bench/runner';
import {
  buildClusterConfig,
  checkKubeconfig,
  clusterMode,
  kubeconfigSecrets,
  parseNodes,
  parseRuntimeClasses,
} from '../src/cluster.ts';
import { readInputs } from '../src/inputs.ts';
import { mergeCheckLines } from '../src/regressions.ts';
import { resultFileNames, stepCleanup, stepInstall, stepRun, stepUp } from '../src/steps.ts';
import type { StepContext } from '../src/step-context.ts';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.secret-token-value';
const KEY = 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCnNlY3JldAo=';
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: bench
    cluster: { server: 'https://127.0.0.1:6443', certificate-authority-data: Q0EK }
users:
  - name: bench
    user: { token: '${TOKEN}', client-key-data: ${KEY} }
contexts:
  - name: bench
    context: { cluster: bench, user: bench }
current-context: bench
`;

const errorOf = (f: () => unknown): RbError => {
  try {
    f();
  } catch (e) {
    return e as RbError;
  }
  throw new Error('no error thrown');
};
const inputs = (extra: Record<string, string> = {}) => readInputs({ INPUT_KUBECONFIG: KUBECONFIG, ...extra });

describe('kubeconfig input', () => {
  test('cluster mode is on only when the kubeconfig holds something', () => {
    expect(clusterMode(inputs())).toBe(true);
    expect(clusterMode(readInputs({ INPUT_KUBECONFIG: ' \n' }))).toBe(false);
    expect(clusterMode(readInputs({}))).toBe(false);
  });

  test('a kubeconfig passes; errors name the input and never repeat its text', () => {
    expect(() => checkKubeconfig(KUBECONFIG)).not.toThrow();
    const broken = `${KUBECONFIG}users: [${TOKEN}\n`;
    const e = errorOf(() => checkKubeconfig(broken));
    expect(e).toBeInstanceOf(RbError);
    expect(e.message).toMatch(/^action inputs: kubeconfig: not valid YAML \(line \d+\)$/);
    expect(`${e.message} ${e.hint}`).not.toContain(TOKEN);
    expect(errorOf(() => checkKubeconfig('/home/me/.kube/config')).message).toMatch(
      /kubeconfig: not a kubeconfig .*looks like a file path/,
    );
    expect(errorOf(() => checkKubeconfig('apiVersion: v1\nclusters: []\n')).message).toMatch(
      /kubeconfig: names no cluster/,
    );
  });

  test('the masks: the whole text and each credential alone, not the CA or the server', () => {
    const secrets = kubeconfigSecrets(KUBECONFIG);
    expect(secrets).toEqual(expect.arrayContaining([KUBECONFIG.trim(), TOKEN, KEY]));
    expect(secrets).toHaveLength(3);
    // Broken YAML: no telling which value is the credential, so each line is masked.
    const broken = `users: [ {token: ${TOKEN}\nclusters: x`;
    expect(kubeconfigSecrets(broken)).toEqual([broken, `users: [ {token: ${TOKEN}`, 'clusters: x']);
  });
});

describe('cluster inputs', () => {
  test('runtime-classes: names and name=handler, any separator', () => {
    expect(parseRuntimeClasses('runc, rb-crun=crun\nkata=kata-qemu')).toEqual([
      { name: 'runc' },
      { name: 'rb-crun', handler: 'crun' },
      { name: 'kata', handler: 'kata-qemu' },
    ]);
    expect(parseRuntimeClasses('')).toEqual([]);
    expect(errorOf(() => parseRuntimeClasses('runc RB_Crun=crun')).message).toBe(
      'action inputs: runtime-classes: "RB_Crun=crun" is not a RuntimeClass (a name of lower-case letters, digits and "-", optionally =handler)',
    );
    expect(errorOf(() => parseRuntimeClasses('a=')).message).toMatch(/"a=" is not a RuntimeClass/);
    expect(errorOf(() => parseRuntimeClasses('runc runc=runc')).message).toMatch(/"runc" is named twice/);
  });

  test('nodes: all, a label selector, or names', () => {
    expect(parseNodes('')).toBeNull();
    expect(parseNodes('all')).toBe('all');
    expect(parseNodes('pool=bench')).toEqual({ selector: 'pool=bench' });
    expect(parseNodes('node-role.kubernetes.io/bench')).toEqual({
      selector: 'node-role.kubernetes.io/bench',
    });
    expect(parseNodes('node-a, node-b')).toEqual({ names: ['node-a', 'node-b'] });
    expect(errorOf(() => parseNodes('Node_A')).message).toMatch(/^action inputs: nodes: "Node_A" is neither/);
  });

  test('image-pull-policy is checked with the other inputs', () => {
    expect(errorOf(() => inputs({ INPUT_IMAGE_PULL_POLICY: 'never' })).message).toMatch(
      /image-pull-policy: one of Always, IfNotPresent, Never/,
    );
  });
});

describe('the cluster run config', () => {
  test('from the inputs alone: one kubernetes target on the written kubeconfig, the kubernetes benchmarks', () => {
    const config = buildClusterConfig(
      null,
      inputs({
        INPUT_RUNTIME_CLASSES: 'runc rb-crun=crun',
        INPUT_NODES: 'pool=bench',
        INPUT_IMAGE: 'registry.example.com/rb/bench:1',
        INPUT_IMAGE_PULL_POLICY: 'Always',
        INPUT_RUNS: '2',
      }),
      '/tmp/w/kubeconfig.yaml',
    );
    expect(config.benchmarks).toEqual(['kubernetes']);
    expect(config.runs).toBe(2);
    expect(config.targets).toEqual([
      expect.objectContaining({
        kind: 'kubernetes',
        kubeconfig: '/tmp/w/kubeconfig.yaml',
        runtimeClasses: [{ name: 'runc' }, { name: 'rb-crun', handler: 'crun' }],
        nodes: { selector: 'pool=bench' },
        image: 'registry.example.com/rb/bench:1',
        imagePullPolicy: 'Always',
      }),
    ]);
  });

  test("examples/cluster.yaml: its target kept, the secret's kubeconfig and the set inputs over it", async () => {
    const base = parse(await readFile(join(import.meta.dirname, '../../examples/cluster.yaml'), 'utf8'));
    const kept = buildClusterConfig(base, inputs({ INPUT_CONFIG: 'c.yaml' }), '/k');
    expect(kept.targets[0]).toMatchObject({
      kind: 'kubernetes',
      kubeconfig: '/k',
      runtimeClasses: [{ name: 'runc' }, { name: 'rb-crun', handler: 'crun' }],
      nodes: { selector: 'runtime-bench=true' },
      imagePullPolicy: 'IfNotPresent',
    });
    expect([kept.benchmarks, kept.runs, kept.warmup]).toEqual([['kubernetes'], 30, 2]);
    const over = buildClusterConfig(
      { ...base, targets: [{ cri: 'containerd' }, ...base.targets] },
      inputs({ INPUT_RUNTIME_CLASSES: 'gvisor', INPUT_NODES: 'n1', INPUT_SUITES: 'kubernetes.pod-startup' }),
      '/k',
    );
    expect(over.targets).toHaveLength(1);
    expect(over.targets[0]).toMatchObject({ runtimeClasses: [{ name: 'gvisor' }], nodes: { names: ['n1'] } });
    expect(over.benchmarks).toEqual(['kubernetes.pod-startup']);
  });

  test('no RuntimeClass anywhere: the error names the input and the fix', () => {
    const e = errorOf(() => buildClusterConfig({ runs: 3 }, inputs(), '/k'));
    expect(e.message).toBe(
      'action inputs: runtime-classes: cluster mode needs the RuntimeClasses to compare',
    );
    expect(e.hint).toMatch(/set runtime-classes, e\.g\. "runc rb-crun=crun", or give a kubernetes target/);
  });
});

test('result files: result.json, or one per node', () => {
  expect(
    resultFileNames([
      'summary.md',
      'result.node-b.json',
      'config.yaml',
      'result.node-a.json',
      'results.json',
    ]),
  ).toEqual(['result.node-a.json', 'result.node-b.json']);
  expect(resultFileNames(['result.json', 'install.json'])).toEqual(['result.json']);
});

test('check lines of several nodes: coverage lines say which file they are about', () => {
  const a = { regressions: ['r1'], ongoing: [], coverage: ['3 of 5 rows checked'], entries: [] };
  const b = { regressions: ['r2'], ongoing: ['o'], coverage: ['no history'], entries: [] };
  expect(mergeCheckLines([a], ['x'])).toBe(a);
  expect(mergeCheckLines([a, b], ['result.n1.json', 'result.n2.json'])).toEqual({
    regressions: ['r1', 'r2'],
    ongoing: ['o'],
    coverage: ['result.n1.json: 3 of 5 rows checked', 'result.n2.json: no history'],
    entries: [],
  });
});

describe('cluster-mode steps (the CLI replaced by a recorder)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('install and cleanup run no command; up writes the kubeconfig 0600; run removes it', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rb-action-cluster-'));
    dirs.push(workDir);
    const calls: string[][] = [];
    const outputs: Record<string, string> = {};
    let modeDuringRun = 0;
    const ctx: StepContext = {
      inputs: inputs({ INPUT_RUNTIME_CLASSES: 'runc' }),
      workDir,
      workspace: workDir,
      setOutput: (n, v) => (outputs[n] = v),
      stepSummary: false,
      runtimeBench: async (args) => {
        calls.push(args);
        if (args[0] === 'run') {
          modeDuringRun = (await stat(join(workDir, 'kubeconfig.yaml'))).mode & 0o777;
          for (const node of ['n1', 'n2']) await writeFile(join(workDir, `result.${node}.json`), '{}');
        }
        return '';
      },
    };
    // A result file of an earlier run is not taken for this one's.
    await writeFile(join(workDir, 'result.json'), '{}');
    await stepInstall(ctx);
    await stepUp(ctx);
    expect(calls).toEqual([]);
    expect(await readFile(join(workDir, 'kubeconfig.yaml'), 'utf8')).toBe(KUBECONFIG);
    const config = parse(await readFile(join(workDir, 'config.yaml'), 'utf8'));
    expect(config.targets[0].kubeconfig).toBe(join(workDir, 'kubeconfig.yaml'));
    expect(JSON.stringify(config)).not.toContain(TOKEN);
    await stepRun(ctx);
    expect(modeDuringRun).toBe(0o600);
    expect(calls).toEqual([
      ['run', '--config', join(workDir, 'config.yaml'), '--out', join(workDir, 'result.json')],
    ]);
    expect(outputs['result-paths']!.split('\n')).toEqual([
      join(workDir, 'result.n1.json'),
      join(workDir, 'result.n2.json'),
    ]);
    expect(outputs['result-path']).toBe(join(workDir, 'result.n1.json'));
    expect(await readdir(workDir)).not.toContain('kubeconfig.yaml');
    // Cleanup: no stack to stop, nothing uninstalled; a kubeconfig left by a failed run goes.
    await writeFile(join(workDir, 'kubeconfig.yaml'), KUBECONFIG);
    await stepCleanup({ ...ctx, inputs: { ...ctx.inputs, keep: true } });
    expect(calls).toHaveLength(1);
    expect(await readdir(workDir)).not.toContain('kubeconfig.yaml');
  });
});
