// The cluster mode's target kind: a kubernetes target's benchmarks as pods, one RuntimeClass after
// the other on each selected node, interleaved per repetition (node A class 1, node A class 2,
// node B …, then again) by the shared loop of run/orchestrate.ts. One result document per node —
// the node is its host, each node × RuntimeClass a target — so compare, check, the gate and the
// site read them as any other run. The namespace and the RuntimeClasses the run creates are
// deleted at the end, also after a signal (the pods go with the namespace).
import type { V1Node } from '@kubernetes/client-node';
import { KubeConfig, type CoreV1Api } from '@kubernetes/client-node';
import type { Config, KubernetesTargetConfig, Target } from '@runtime-bench/schemas';
import { RbError, errorMessage, InterruptedError } from '../errors.ts';
import type { ResultPart } from '../results/assemble.ts';
import { newSlot, type Slot } from '../run/orchestrate.ts';
import type { PreparedRun, RunContext, TargetKind } from '../run/pipeline.ts';
import { guessOciKind } from '../stack/versions.ts';
import { selectOfKind } from '../suites/registry.ts';
import { WaitTimeoutError, waitFor } from '../util/wait.ts';
import { KUBERNETES_BENCHMARKS } from './benchmarks.ts';
import { Cluster, MANAGED_BY, goneProbe, statusCode } from './cluster-api.ts';
import { nodeCri, nodeHost, usableNodes, type NodeProbe } from './nodes.ts';
import type { KubernetesBenchmark } from './pod-benchmark.ts';

export { MANAGED_BY };

/** How long a new namespace may take to get its default service account (pods wait for it). */
const SERVICE_ACCOUNT_TIMEOUT_MS = 60_000;

const field = (index: number, name: string): string => `targets[${index}].${name}`;

/** The kubernetes benchmarks the config's `benchmarks` and `skip` prefixes select. */
export function selectKubernetesBenchmarks(
  config: Pick<Config, 'benchmarks' | 'skip'>,
  where: string,
): KubernetesBenchmark[] {
  return selectOfKind(KUBERNETES_BENCHMARKS, config, where, 'kubernetes');
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

/**
 * The kubernetes target kind of a config: it runs alone, and only the kubernetes.* benchmarks;
 * both are checked here, before anything starts, naming the config file `where`.
 */
export function kubernetesKind(config: Config, where = 'config'): TargetKind {
  const index = config.targets.findIndex((t) => t.kind === 'kubernetes');
  const target = config.targets[index];
  if (!target || target.kind !== 'kubernetes')
    throw new Error('kubernetesKind: the config has no kubernetes target');
  if (config.targets.length > 1)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: targets: a kubernetes target runs alone (found ${config.targets.length} targets)`,
      'put the kubernetes target in a config of its own; compare its results with the CRI-level runs by `runtime-bench compare`',
    );
  const selected = selectKubernetesBenchmarks(config, `targets[${index}]`);
  return { prepare: (ctx) => prepareKubernetesRun(ctx, target, index, selected) };
}

/** The RuntimeClasses of the target: existing ones checked, missing ones created (and listed in `created`). */
async function ensureRuntimeClasses(
  cluster: Cluster,
  target: KubernetesTargetConfig,
  index: number,
  created: string[],
): Promise<Map<string, string>> {
  const handlers = new Map<string, string>();
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
      created.push(rc.name);
      handlers.set(rc.name, rc.handler);
    }
  }
  return handlers;
}

/** Pods are admitted only once the namespace's default service account exists. */
async function awaitServiceAccount(cluster: Cluster, index: number, signal: AbortSignal): Promise<void> {
  const namespace = cluster.namespace;
  try {
    await waitFor(
      async () => {
        await cluster.core.readNamespacedServiceAccount({ name: 'default', namespace });
        return true;
      },
      {
        what: `service account ${namespace}/default`,
        timeoutMs: SERVICE_ACCOUNT_TIMEOUT_MS,
        intervalMs: 200,
        signal,
      },
    );
  } catch (error) {
    // A signal here still ends in an incomplete result: the loop sees it before its first pod.
    if (error instanceof InterruptedError) return;
    if (error instanceof WaitTimeoutError)
      throw new RbError(
        'TARGET_UNAVAILABLE',
        `${field(index, 'kubeconfig')}: ${error.message}: pods cannot be admitted`,
        "check that the cluster's kube-controller-manager runs (it creates every namespace's service account)",
      );
    throw error;
  }
}

/** Connects, creates the run's RuntimeClasses and namespace, probes the nodes; undoes it all on failure. */
async function prepareKubernetesRun(
  ctx: RunContext,
  target: KubernetesTargetConfig,
  index: number,
  selected: readonly KubernetesBenchmark[],
): Promise<PreparedRun> {
  const { config, runId, signal, log } = ctx;
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
  let namespaceCreated = false;
  const close = (): Promise<void> =>
    cleanup(cluster, namespaceCreated ? namespace : null, createdClasses, target.podTimeoutSeconds, log);
  const classes = target.runtimeClasses.map((c) => c.name);
  const probes = new Map<string, NodeProbe | null>();
  let handlers: Map<string, string>;
  try {
    handlers = await ensureRuntimeClasses(cluster, target, index, createdClasses);
    await cluster.core.createNamespace({ body: { metadata: { name: namespace, labels: cluster.runLabel } } });
    namespaceCreated = true;
    log(
      `kubernetes: namespace ${namespace}, ${nodes.length} node(s), RuntimeClasses ${[...handlers].map(([n, h]) => `${n} (${h})`).join(', ')}`,
    );
    await awaitServiceAccount(cluster, index, signal);
    for (const node of nodes) {
      if (signal.aborted) break;
      probes.set(node.metadata!.name!, await cluster.probe(node, classes[0]!, log));
    }
  } catch (error) {
    await close();
    throw error;
  }
  const slots: { slot: Slot; node: string }[] = selected.flatMap((kb) =>
    nodes.flatMap((node) =>
      classes.map((rc) => {
        const parameters = {
          ...kb.parameters?.(config),
          image: target.image,
          imagePullPolicy: target.imagePullPolicy,
          runtimeClass: rc,
          node: node.metadata!.name!,
        };
        const slot = newSlot(kb.definition, `${target.name}/${rc}`, parameters, () =>
          kb.iterate({ cluster, node, runtimeClass: rc, config, signal }),
        );
        // Progress names the node: the target id alone repeats on every node.
        slot.label = `${node.metadata!.name!}/${rc}`;
        return { slot, node: node.metadata!.name! };
      }),
    ),
  );
  return {
    slots: slots.map((s) => s.slot),
    signal,
    finish: () =>
      Promise.resolve(
        nodes.map((node) =>
          nodePart(
            node,
            target,
            handlers,
            probes.get(node.metadata!.name!) ?? null,
            selected,
            slots.filter((s) => s.node === node.metadata!.name!).map((s) => s.slot),
          ),
        ),
      ),
    close,
  };
}

/** One node's result document: the node as host, each RuntimeClass on it a target. */
function nodePart(
  node: V1Node,
  target: KubernetesTargetConfig,
  handlers: ReadonlyMap<string, string>,
  probe: NodeProbe | null,
  selected: readonly KubernetesBenchmark[],
  slots: readonly Slot[],
): ResultPart {
  const nodeName = node.metadata!.name!;
  const cri = nodeCri(node);
  const kubeletVersion = node.status?.nodeInfo?.kubeletVersion || 'unknown';
  const targets: Target[] = target.runtimeClasses.map(({ name: rc }) => {
    const handler = handlers.get(rc)!;
    return {
      id: `${target.name}/${rc}`,
      cri: { name: cri.name, version: cri.version, apiVersion: 'v1', endpoint: `kubernetes://${nodeName}` },
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
    host: nodeHost(node, probe),
    components: [
      { name: 'kubelet', role: 'tool', version: kubeletVersion },
      { name: cri.name, role: 'cri', version: cri.version },
    ],
    targets,
    benchmarks: selected.map((k) => k.definition),
    slots,
  };
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
      await waitFor(() => goneProbe(() => cluster.core.readNamespace({ name: namespace })), {
        what: `namespace ${namespace} deleted`,
        timeoutMs: Math.max(60, timeoutSeconds) * 1000,
        intervalMs: 250,
      });
    } catch (error) {
      if (error instanceof WaitTimeoutError)
        log(`cleanup: namespace ${namespace} still terminating; it goes once its pods are gone`);
      else if (statusCode(error) !== 404) log(`cleanup: namespace ${namespace}: ${errorMessage(error)}`);
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
