// The action's cluster mode end to end under act, against a real cluster the caller brought up
// (`runtime-bench cluster up` on a stack): workflows/cluster-nightly.yml verbatim → the reusable
// workflow at the released tag v1 (mode cluster, the kubeconfig secret) → the composite action.
// One target, two RuntimeClasses the run creates (rb-act-runc → runc, rb-act-crun → crun),
// kubernetes.pod-startup × 2 runs, no warm-up; the results are published to a local data branch.
// Then examples/cluster-rbac.yaml is applied and the API server is asked (SubjectAccessReview)
// whether its ServiceAccount may make every call runner/src/kubernetes/ makes, and not others.
//
// Exported for runner/test/integration/kubernetes.test.ts, which owns the one cluster CI brings
// up; it asserts with vitest's expect and throws on the first failure. Measured on the 2-core
// test host: 50–75 s in all, act 35–57 s of it (release.sh and the action's setup the rest).
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  NodeV1Api,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { readResultFile } from '@runtime-bench/runner';
import { GrpcCriClient } from '../../../runner/src/cri/grpc-client.ts';
import { sandboxHandlers } from '../../../runner/test/support/kubernetes.ts';
import { kubeconfigSecrets } from '../../src/cluster.ts';
import { kubernetesSources, permissionKey, rbacObjects, requiredPermissions } from '../rbac.ts';
import { CALLER_REPO, git, prepareRepos, runAct, type ActRun } from './harness.ts';

const exec = promisify(execFile);
const has = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const CLASSES = { 'rb-act-runc': 'runc', 'rb-act-crun': 'crun' } as const;
const SECRET = 'RUNTIME_BENCH_KUBECONFIG';
const TARGET = 'cluster';

/** A kubeconfig as a user stores it in a secret: every file it names inlined as *-data. */
async function selfContained(path: string): Promise<string> {
  const doc = parse(await readFile(path, 'utf8')) as Record<
    string,
    { [k: string]: Record<string, unknown> }[]
  >;
  const inline = async (obj: Record<string, unknown>, key: string) => {
    if (typeof obj[key] !== 'string') return;
    obj[`${key}-data`] = (await readFile(obj[key])).toString('base64');
    delete obj[key];
  };
  for (const c of doc.clusters ?? []) await inline(c.cluster!, 'certificate-authority');
  for (const u of doc.users ?? []) {
    await inline(u.user!, 'client-certificate');
    await inline(u.user!, 'client-key');
  }
  return stringify(doc);
}

const stepOutcome = (run: ActRun, step: string) =>
  run.log
    .split('\n')
    .filter((l) => l.includes(`bench ${TARGET}`) && l.includes(` - Main ${step}`))
    .map((l) => (l.includes('✅') ? 'success' : l.includes('❌') ? 'failure' : 'other'));

/** Why the check cannot run on this host (no act), or null; the caller skips with this reason. */
export async function clusterModeUnavailable(): Promise<string | null> {
  const act = await exec('act', ['--version']).catch(() => null);
  return act === null ? 'needs act on PATH (bash scripts/setup-test.sh installs it)' : null;
}

export async function checkClusterModeUnderAct(opts: { kubeconfig: string; stack: string }): Promise<void> {
  const suffix = process.env.RB_TEST_STACK_SUFFIX ?? '';
  const tmp = await mkdtemp(`/var/tmp/rb-act-cluster${suffix}-`);
  const kc = new KubeConfig();
  kc.loadFromFile(opts.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const nodeApi = kc.makeApiClient(NodeV1Api);
  const classesBefore = (await nodeApi.listRuntimeClass()).items.map((c) => c.metadata!.name!).sort();
  // Read here, independently of the run: the nodes a run over "all" must report on.
  const nodes = (await core.listNode()).items
    .filter((n) => !n.spec?.unschedulable)
    .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((n) => n.metadata!.name!)
    .sort();
  expect(nodes.length).toBeGreaterThan(0);
  const secret = await selfContained(opts.kubeconfig);
  const cri = new GrpcCriClient(`/var/lib/runtime-bench/stacks/${opts.stack}/containerd.sock`, 10);
  const actionDir = join(tmp, 'action-work');
  try {
    const repos = await prepareRepos(
      tmp,
      {
        // Kept small for CI: one benchmark, two runs, no warm-up.
        'runtime-bench-cluster.yaml':
          'name: act-cluster\nbenchmarks: [kubernetes.pod-startup]\nruns: 2\nwarmup: 0\n',
        'baseline-cluster/.gitkeep': '',
      },
      'cluster-nightly.yml',
    );
    // The stack's CRI, polled while act runs: the handler each kubelet-made sandbox runs under.
    const handlers = sandboxHandlers(`/var/lib/runtime-bench/stacks/${opts.stack}/containerd.sock`);
    let seen = new Map<string, string>();
    let run: ActRun;
    try {
      run = await runAct({
        tmp,
        repos,
        night: 'cluster',
        timeoutMs: 420_000,
        workflow: 'cluster-nightly.yml',
        secrets: { [SECRET]: secret },
        // The action's work directory outside act's job directory, so that what is left in it
        // can be looked at after act removed the job's RUNNER_TEMP.
        env: { RB_ACTION_DIR: actionDir },
        vars: {
          RUNTIME_BENCH_CLUSTER_TARGETS: JSON.stringify([
            {
              name: TARGET,
              'runs-on': ['self-hosted', 'linux', 'x64'],
              'runtime-classes': Object.entries(CLASSES)
                .map(([name, handler]) => `${name}=${handler}`)
                .join(' '),
              image: 'localhost/runtime-bench/bench:latest',
              'image-pull-policy': 'Never',
            },
          ]),
        },
      });
    } finally {
      seen = await handlers.stop();
    }
    console.log(`act cluster mode: ${run.seconds.toFixed(0)} s`);
    expect(run.code, run.log.slice(-4000)).toBe(0);
    for (const step of [
      'Benchmark',
      'Job summary and regressions',
      'Clean up the stack and what was installed, or the kubeconfig',
    ])
      expect(stepOutcome(run, step), step).toEqual(['success']);
    expect(run.log).toContain('cluster mode (kubeconfig given): nothing to install, no local stack');
    expect(run.log).not.toMatch(/runtime-bench (stack (up|down)|install|uninstall) /);

    // The secret never reached the log: not whole, not JSON-escaped, no credential in it alone.
    for (const s of [...kubeconfigSecrets(secret), JSON.stringify(secret)])
      expect(run.log.includes(s)).toBe(false);
    // It was on disk only while the run needed it.
    expect(await has(join(actionDir, 'kubeconfig.yaml'))).toBe(false);

    // One result per node, uploaded as <target>.json (one node) or <target>.<node>.json.
    const artifactRoot = join(tmp, 'artifacts-cluster');
    const into = join(tmp, 'a-cluster');
    await mkdir(into, { recursive: true });
    const runDir = join(artifactRoot, (await readdir(artifactRoot))[0]!);
    await exec('tar', [
      '-C',
      into,
      '-xf',
      join(runDir, `runtime-bench-${TARGET}`, `runtime-bench-${TARGET}.zip`),
    ]);
    const jsons = (await readdir(into)).filter((f) => f.endsWith('.json')).sort();
    expect(jsons).toEqual(
      nodes.length === 1 ? [`${TARGET}.json`] : nodes.map((n) => `${TARGET}.${n}.json`).sort(),
    );
    const results = await Promise.all(jsons.map((f) => readResultFile(join(into, f))));
    expect(results.map((r) => r.targets[0]!.kubernetes!.node).sort()).toEqual(nodes);
    for (const r of results) {
      expect(r.status).toBe('complete');
      expect(r.targets.map((t) => [t.transport, t.kubernetes?.runtimeClass, t.handler])).toEqual(
        Object.entries(CLASSES).map(([rc, h]) => ['kubernetes', rc, h]),
      );
      expect(r.results.map((x) => [x.benchmark, x.status, x.attempts])).toEqual(
        Object.keys(CLASSES).map(() => ['kubernetes.pod-startup', 'ok', 2]),
      );
    }
    expect(await readFile(join(into, `${TARGET}.md`), 'utf8')).toContain('## kubernetes.pod-startup');
    expect((await readFile(join(into, `${TARGET}.regressions`), 'utf8')).trim()).toBe('0');

    // The publish job committed every node's result to the data branch.
    const bare = join(repos.gitBase, `${CALLER_REPO}.git`);
    const published = (await git(bare, 'ls-tree', '-r', '--name-only', 'benchmark-data', 'data/runs'))
      .split('\n')
      .filter(Boolean);
    expect(published).toHaveLength(nodes.length);

    // Pods ran under their class's handler, as the node's CRI tells (2 measured pods per class).
    for (const [rc, handler] of Object.entries(CLASSES)) {
      const pods = [...seen].filter(([name]) => name.startsWith('start-') && name.endsWith(`-${rc}`));
      expect(pods.length, JSON.stringify([...seen])).toBe(2 * nodes.length);
      for (const [, h] of pods) expect(h).toBe(handler);
    }

    // Nothing of the run is left: namespace, RuntimeClasses it created, running sandboxes.
    const namespaces = (await core.listNamespace()).items.map((n) => n.metadata!.name!);
    expect(namespaces.filter((n) => n.startsWith('runtime-bench-'))).toEqual([]);
    expect((await nodeApi.listRuntimeClass()).items.map((c) => c.metadata!.name!).sort()).toEqual(
      classesBefore,
    );
    // On the node: no sandbox of the run still running. Stopped ones (SANDBOX_NOTREADY) are the
    // kubelet's to remove, by its container garbage collection about once a minute.
    const running = (await cri.listPodSandbox()).filter(
      (p) =>
        (p.labels['io.kubernetes.pod.namespace'] ?? '').startsWith('runtime-bench-') &&
        p.state === 'SANDBOX_READY',
    );
    expect(running).toEqual([]);

    await checkClusterRbac(kc);
  } finally {
    cri.close();
    // A safety net when an assertion failed half-way: only the classes this check names.
    for (const name of Object.keys(CLASSES))
      if (!classesBefore.includes(name)) await nodeApi.deleteRuntimeClass({ name }).catch(() => undefined);
    if (process.env.RB_ACT_LOG_DIR) {
      await mkdir(process.env.RB_ACT_LOG_DIR, { recursive: true });
      await exec('cp', [join(tmp, 'act-cluster.log'), process.env.RB_ACT_LOG_DIR]).catch(() => undefined);
    }
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * examples/cluster-rbac.yaml on the real API server: applied, every permission the runner's code
 * needs allowed for its ServiceAccount, a few it does not need denied, then removed again.
 */
export async function checkClusterRbac(kc: KubeConfig): Promise<void> {
  const objects = (await rbacObjects()) as unknown as (KubernetesObject & {
    metadata: { name: string; namespace?: string };
  })[];
  const api = KubernetesObjectApi.makeApiClient(kc);
  const authz = kc.makeApiClient(AuthorizationV1Api);
  const sa = objects.find((o) => o.kind === 'ServiceAccount')!;
  const created: KubernetesObject[] = [];
  try {
    for (const o of objects) {
      await api.create(o);
      created.push(o);
    }
    const allowed = async (p: { group: string; resource: string; subresource?: string; verb: string }) => {
      const review = await authz.createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`,
            groups: [
              'system:serviceaccounts',
              `system:serviceaccounts:${sa.metadata.namespace}`,
              'system:authenticated',
            ],
            resourceAttributes: { ...p, namespace: p.resource === 'pods' ? 'runtime-bench-x' : undefined },
          },
        },
      });
      return review.status?.allowed === true;
    };
    const needed = requiredPermissions(await kubernetesSources());
    for (const p of needed) expect(await allowed(p), permissionKey(p)).toBe(true);
    for (const p of [
      { group: '', resource: 'secrets', verb: 'get' },
      { group: '', resource: 'pods', subresource: 'exec', verb: 'create' },
      { group: '', resource: 'nodes', verb: 'delete' },
    ])
      expect(await allowed(p), permissionKey(p)).toBe(false);
  } finally {
    for (const o of created.reverse()) await api.delete(o).catch(() => undefined);
    // Gone before returning: a namespace still terminating refuses the next check's create.
    const core = kc.makeApiClient(CoreV1Api);
    for (const o of created.filter((c) => c.kind === 'Namespace'))
      for (let i = 0; i < 240; i++) {
        const exists = await core.readNamespace({ name: o.metadata!.name! }).then(
          () => true,
          () => false,
        );
        if (!exists) break;
        await new Promise((r) => setTimeout(r, 250));
      }
  }
}
