// The cluster mode's run: a kubernetes target's benchmarks as pods, one RuntimeClass after the
// other on each selected node, interleaved per repetition (node A class 1, node A class 2, node B
// …, then again) like the CRI-level runs. One result document per node — the node is its host,
// each node × RuntimeClass a target — so compare, check, the gate and the site read them as any
// other run. The namespace and the RuntimeClasses the run creates are deleted at the end, also
// after a signal (the pods go with the namespace).
import { performance } from 'node:perf_hooks';
import type { V1Node } from '@kubernetes/client-node';
import { KubeConfig, type CoreV1Api } from '@kubernetes/client-node';
import {
  RESULT_SCHEMA_VERSION,
  runsFor,
  type Config,
  type KubernetesTargetConfig,
  type RunResult,
  type Target,
} from '@runtime-bench/schemas';
import { RbError, errorMessage } from '../errors.ts';
import { BenchmarkAccumulator, assembleBenchmarkResult, configHash, newRunId } from '../results/assemble.ts';
import { guessOciKind } from '../stack/versions.ts';
import { matchesPrefix } from '../suites/registry.ts';
import { InterruptedError, type IterationOutcome } from '../suites/types.ts';
import { sleep } from '../util/exec.ts';
import { toolRecord } from '../version.ts';
import type { ProgressEvent } from '../run/orchestrate.ts';
import { describeStop, type StopCause } from '../run/execute.ts';
import { KUBERNETES_BENCHMARKS } from './benchmarks.ts';
import { Cluster, MANAGED_BY, statusCode } from './cluster-api.ts';
import { nodeCri, nodeHost, usableNodes, type NodeProbe } from './nodes.ts';
import type { KubernetesBenchmark } from './pod-benchmark.ts';

export { MANAGED_BY };

export interface KubernetesRunOptions {
  config: Config;
  target: KubernetesTargetConfig;
  /** Position of the target in the config, for error messages. */
  index: number;
  signal: AbortSignal;
  onProgress: (event: ProgressEvent) => void;
  log: (line: string) => void;
  now?: () => Date;
}

export interface KubernetesRunOutcome {
  /** One result per node. */
  results: RunResult[];
  stop: StopCause | null;
}

const field = (index: number, name: string): string => `targets[${index}].${name}`;

/** The kubernetes benchmarks the config's `benchmarks` and `skip` prefixes select. */
export function selectKubernetesBenchmarks(
  config: Pick<Config, 'benchmarks' | 'skip'>,
  where: string,
): KubernetesBenchmark[] {
  const selected = KUBERNETES_BENCHMARKS.filter(
    ({ definition: b }) =>
      config.benchmarks.some((p) => matchesPrefix(b.name, p)) &&
      !config.skip.some((p) => matchesPrefix(b.name, p)),
  );
  if (selected.length === 0)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: benchmarks: [${config.benchmarks.join(', ')}] selects no benchmark a kubernetes target runs`,
      `a kubernetes target runs ${KUBERNETES_BENCHMARKS.map((b) => b.definition.name).join(', ')}: set benchmarks: [kubernetes] or some of these`,
    );
  return selected;
}

export function loadKubeConfig(target: KubernetesTargetConfig, index: number): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (target.kubeconfig) kc.loadFromFile(target.kubeconfig);
    else kc.loadFromDefault();
    if (target.context) {
      if (!kc.getContextObject(target.context))
        throw new Error(`no context "${target.context}" in the kubeconfig`);
      kc.setCurrentContext(target.context);
    }
  } catch (error) {
    throw new RbError(
      'CONFIG_INVALID',
      `${field(index, target.context ? 'context' : 'kubeconfig')}: ${errorMessage(error)}`,
      'give a readable kubeconfig file (default: $KUBECONFIG, then ~/.kube/config) and one of its contexts',
    );
  }
  if (!kc.getCurrentCluster())
    throw new RbError(
      'CONFIG_INVALID',
      `${field(index, 'kubeconfig')}: no cluster found (${target.kubeconfig ?? '$KUBECONFIG or ~/.kube/config'})`,
      "set targets[].kubeconfig to the cluster's kubeconfig file",
    );
  return kc;
}

async function selectNodes(
  core: CoreV1Api,
  target: KubernetesTargetConfig,
  index: number,
): Promise<V1Node[]> {
  if (target.nodes === 'all' || 'selector' in target.nodes) {
    const selector = target.nodes === 'all' ? undefined : target.nodes.selector;
    const list = await core.listNode(selector ? { labelSelector: selector } : {});
    const nodes = usableNodes(list.items);
    if (nodes.length === 0)
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(index, 'nodes')}: no Ready, schedulable node${selector ? ` matches "${selector}"` : ''}`,
        'check `kubectl get nodes`' + (selector ? ' and the label selector' : ''),
      );
    return nodes;
  }
  const nodes: V1Node[] = [];
  for (const [i, name] of target.nodes.names.entries()) {
    try {
      nodes.push(await core.readNode({ name }));
    } catch (error) {
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(index, `nodes.names[${i}]`)}: node "${name}": ${statusCode(error) === 404 ? 'not found' : errorMessage(error)}`,
        'list the nodes with `kubectl get nodes`',
      );
    }
  }
  return nodes;
}

/** Runs a kubernetes target's benchmarks; cleans up what it created whatever happens. */
export async function executeKubernetesRun(opts: KubernetesRunOptions): Promise<KubernetesRunOutcome> {
  const { config, target, index, signal, log } = opts;
  const now = opts.now ?? (() => new Date());
  const started = now();
  const runId = newRunId(started);
  const where = `targets[${index}]`;
  const selected = selectKubernetesBenchmarks(config, where);
  const benchmarks = selected.map((k) => k.definition);
  const kc = loadKubeConfig(target, index);
  const namespace = `${target.namespacePrefix}${runId.toLowerCase()}`.slice(0, 63);
  const cluster = new Cluster(kc, target, namespace, runId);
  try {
    await cluster.core.listNamespace({ limit: 1 });
  } catch (error) {
    throw new RbError(
      'TARGET_UNAVAILABLE',
      `${field(index, 'kubeconfig')}: the cluster at ${kc.getCurrentCluster()?.server ?? '?'} does not answer: ${errorMessage(error)}`,
      'check the kubeconfig and that the cluster is up',
    );
  }
  const nodes = await selectNodes(cluster.core, target, index);
  const createdClasses: string[] = [];
  const handlers = new Map<string, string>();
  let namespaceCreated = false;
  try {
    for (const [i, rc] of target.runtimeClasses.entries()) {
      try {
        const existing = await cluster.nodeApi.readRuntimeClass({ name: rc.name });
        if (rc.handler && existing.handler !== rc.handler)
          throw new RbError(
            'CONFIG_INVALID',
            `${field(index, `runtimeClasses[${i}].handler`)}: RuntimeClass "${rc.name}" exists with handler "${existing.handler}", not "${rc.handler}"`,
            'drop handler to use the existing class, or give another name',
          );
        handlers.set(rc.name, existing.handler);
      } catch (error) {
        if (statusCode(error) !== 404) throw error;
        if (!rc.handler)
          throw new RbError(
            'CONFIG_INVALID',
            `${field(index, `runtimeClasses[${i}]`)}: RuntimeClass "${rc.name}" does not exist`,
            `add handler: <CRI handler> to have the run create it, or create it (\`kubectl get runtimeclass\`)`,
          );
        await cluster.nodeApi.createRuntimeClass({
          body: {
            apiVersion: 'node.k8s.io/v1',
            kind: 'RuntimeClass',
            metadata: { name: rc.name, labels: MANAGED_BY },
            handler: rc.handler,
          },
        });
        createdClasses.push(rc.name);
        handlers.set(rc.name, rc.handler);
      }
    }
    await cluster.core.createNamespace({ body: { metadata: { name: namespace, labels: cluster.runLabel } } });
    namespaceCreated = true;
    log(
      `kubernetes: namespace ${namespace}, ${nodes.length} node(s), RuntimeClasses ${[...handlers].map(([n, h]) => `${n} (${h})`).join(', ')}`,
    );
    // Pods are admitted only once the namespace's default service account exists.
    let saReady = false;
    const saDeadline = performance.now() + 60_000;
    while (!saReady && performance.now() < saDeadline && !signal.aborted) {
      try {
        await cluster.core.readNamespacedServiceAccount({ name: 'default', namespace });
        saReady = true;
      } catch {
        await sleep(200);
      }
    }

    const classes = target.runtimeClasses.map((c) => c.name);
    const probes = new Map<string, NodeProbe | null>();
    for (const node of nodes) {
      if (signal.aborted) break;
      probes.set(node.metadata!.name!, await cluster.probe(node, classes[0]!, log));
    }
    const acc = new Map<string, BenchmarkAccumulator>();
    const key = (b: string, node: string, rc: string): string => `${b}\u0000${node}\u0000${rc}`;
    for (const b of benchmarks)
      for (const node of nodes)
        for (const rc of classes) acc.set(key(b.name, node.metadata!.name!, rc), new BenchmarkAccumulator(b));
    outer: for (const kb of selected) {
      const b = kb.definition;
      const repetitions = config.warmup + runsFor(config, b.name);
      for (let rep = 0; rep < repetitions; rep++) {
        const warmup = rep < config.warmup;
        for (const node of nodes) {
          for (const rc of classes) {
            if (signal.aborted) break outer;
            const a = acc.get(key(b.name, node.metadata!.name!, rc))!;
            const progress = {
              benchmark: b.name,
              target: `${node.metadata!.name!}/${rc}`,
              repetition: rep + 1,
              repetitions,
              warmup,
            };
            opts.onProgress(progress);
            let outcome: IterationOutcome;
            try {
              outcome = await kb.iterate({ cluster, node, runtimeClass: rc, config, signal });
            } catch (error) {
              if (error instanceof InterruptedError || signal.aborted) {
                a.interrupted = true;
                break outer;
              }
              outcome = { values: {}, errors: {}, failure: `unexpected error: ${errorMessage(error)}` };
            }
            if (!warmup) a.record(outcome);
            opts.onProgress({ ...progress, outcome });
            if (config.settleSeconds > 0 && !signal.aborted) await sleep(config.settleSeconds * 1000);
          }
        }
      }
    }
    if (signal.aborted)
      for (const a of acc.values()) if (a.attempts < runsFor(config, a.definition.name)) a.interrupted = true;
    const stop: StopCause | null = signal.aborted
      ? { kind: 'signal', signal: typeof signal.reason === 'string' ? signal.reason : 'a signal' }
      : null;

    const tool = toolRecord();
    const results = nodes.map((node, i): RunResult => {
      const nodeName = node.metadata!.name!;
      const cri = nodeCri(node);
      const kubeletVersion = node.status?.nodeInfo?.kubeletVersion || 'unknown';
      const targets: Target[] = classes.map((rc) => {
        const handler = handlers.get(rc)!;
        return {
          id: `${target.name}/${rc}`,
          cri: {
            name: cri.name,
            version: cri.version,
            apiVersion: 'v1',
            endpoint: `kubernetes://${nodeName}`,
          },
          handler,
          oci: { name: guessOciKind(handler) ?? handler, version: 'unknown', path: null },
          transport: 'kubernetes',
          kubernetes: {
            node: nodeName,
            runtimeClass: rc,
            kubeletVersion,
            containerRuntimeVersion: node.status?.nodeInfo?.containerRuntimeVersion || 'unknown',
          },
        };
      });
      return {
        schemaVersion: RESULT_SCHEMA_VERSION,
        // One run id per node: each is a result of its own (the first keeps the namespace's id).
        runId: i === 0 ? runId : newRunId(started),
        status: stop ? 'incomplete' : 'complete',
        ...(stop ? { incompleteReason: describeStop(stop) } : {}),
        startedAt: started.toISOString(),
        finishedAt: now().toISOString(),
        tool,
        host: nodeHost(node, probes.get(nodeName) ?? null),
        components: [
          { name: 'kubelet', role: 'tool', version: kubeletVersion },
          { name: cri.name, role: 'cri', version: cri.version },
        ],
        config,
        configHash: configHash(config),
        targets,
        benchmarks,
        results: selected.flatMap(({ definition: b, parameters }) =>
          classes.map((rc) =>
            assembleBenchmarkResult(
              acc.get(key(b.name, nodeName, rc))!,
              `${target.name}/${rc}`,
              {
                ...parameters?.(config),
                image: target.image,
                imagePullPolicy: target.imagePullPolicy,
                runtimeClass: rc,
                node: nodeName,
              },
              config.errorThreshold,
            ),
          ),
        ),
      };
    });
    return { results, stop };
  } finally {
    await cleanup(
      cluster,
      namespaceCreated ? namespace : null,
      createdClasses,
      target.podTimeoutSeconds,
      log,
    );
  }
}

/** Deletes the run's namespace (its pods with it) and waits for it to be gone, then its RuntimeClasses. */
async function cleanup(
  cluster: Cluster,
  namespace: string | null,
  classes: string[],
  timeoutSeconds: number,
  log: (line: string) => void,
): Promise<void> {
  if (namespace) {
    try {
      await cluster.core.deleteNamespace({ name: namespace, gracePeriodSeconds: 0 });
      const deadline = performance.now() + Math.max(60, timeoutSeconds) * 1000;
      for (;;) {
        try {
          await cluster.core.readNamespace({ name: namespace });
        } catch (error) {
          if (statusCode(error) === 404) break;
        }
        if (performance.now() > deadline) {
          log(`cleanup: namespace ${namespace} still terminating; it goes once its pods are gone`);
          break;
        }
        await sleep(250);
      }
    } catch (error) {
      if (statusCode(error) !== 404) log(`cleanup: namespace ${namespace}: ${errorMessage(error)}`);
    }
  }
  for (const name of classes) {
    try {
      await cluster.nodeApi.deleteRuntimeClass({ name });
    } catch (error) {
      if (statusCode(error) !== 404) log(`cleanup: RuntimeClass ${name}: ${errorMessage(error)}`);
    }
  }
}
