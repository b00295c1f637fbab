// The cluster mode's one door to the cluster: a run's namespace, its pods (built, created,
// watched, run to completion, deleted and waited for), the kubelet's metrics and the probe pod,
// all through the official client (@kubernetes/client-node). The benchmarks (pod-startup.ts,
// pod-scalability.ts, pod-sysbench.ts) measure with these; execute.ts runs them.
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { CoreV1Api, KubeConfig, NodeV1Api, Watch, type V1Node, type V1Pod } from '@kubernetes/client-node';
import type { KubernetesTargetConfig } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import { sleep } from '../util/exec.ts';
import { waitFor } from '../util/wait.ts';
import { PROBE_SCRIPT, hostnameLabel, parseProbe, runtimeOperationSums, type NodeProbe } from './nodes.ts';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'runtime-bench' };

/** The grace period of a pod deletion: the shortest graceful one (0 is a forced deletion). */
const DELETE_GRACE_SECONDS = 1;

/**
 * A long-running command as a pod's container runs it: under a shell that ends on SIGTERM. As
 * PID 1 the command itself would ignore SIGTERM and hold every graceful deletion for its grace
 * period, so a deletion would time that wait instead of the kubelet's teardown. (Sharing the pod's
 * PID namespace would take PID 1 off the command too, but needs CRI-O's infra container, which
 * cannot start on hosts without CAP_SYS_RESOURCE.) The image needs /bin/sh; ours has busybox.
 */
export function endsOnTerm(command: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'trap "exit 0" TERM; "$@" & wait', 'sh', ...command];
}

/** The HTTP status of a client error, if it has one. */
export const statusCode = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number'
    ? error.code
    : undefined;

/** Resolves when `done()` holds; throws on timeout, and InterruptedError on the signal. */
export async function until(
  done: () => boolean,
  timeoutMs: number,
  signal: AbortSignal | null,
  what: string,
): Promise<void> {
  await waitFor(() => (done() ? true : null), { what, timeoutMs, intervalMs: 20, signal });
}

/** A waitFor probe for an object's deletion: true once reading it answers 404 Not Found. */
export async function goneProbe(read: () => Promise<unknown>): Promise<true | null> {
  try {
    await read();
    return null;
  } catch (error) {
    if (statusCode(error) === 404) return true;
    throw error;
  }
}

/** Why a pod that should run to completion will not (a waiting reason that does not resolve), or null. */
function completionStuck(pod: V1Pod): string | null {
  for (const c of pod.status?.containerStatuses ?? []) {
    const w = c.state?.waiting;
    if (w && /ErrImage|ImagePullBackOff|CreateContainer|InvalidImageName/.test(w.reason ?? ''))
      return `${w.reason}: ${w.message ?? ''}`.trim();
  }
  return null;
}

export class Cluster {
  readonly core: CoreV1Api;
  readonly nodeApi: NodeV1Api;
  readonly watch: Watch;
  readonly namespace: string;
  readonly target: KubernetesTargetConfig;
  readonly runLabel: Record<string, string>;
  readonly kc: KubeConfig;
  private seq = 0;

  constructor(kc: KubeConfig, target: KubernetesTargetConfig, namespace: string, runId: string) {
    this.kc = kc;
    this.core = kc.makeApiClient(CoreV1Api);
    this.nodeApi = kc.makeApiClient(NodeV1Api);
    this.watch = new Watch(kc);
    this.namespace = namespace;
    this.target = target;
    this.runLabel = { ...MANAGED_BY, 'runtime-bench/run': runId.toLowerCase() };
  }

  /** A pod name unique in the run: `<kind>-<n>-<RuntimeClass>`. */
  podName(kind: string, runtimeClass: string): string {
    return `${kind}-${++this.seq}-${runtimeClass}`.slice(0, 63).replace(/-+$/, '');
  }

  /** A fresh value for a label that groups the pods of one measurement (see watchPods). */
  batchLabel(): string {
    return `b${++this.seq}`;
  }

  podBody(
    name: string,
    node: V1Node,
    runtimeClass: string,
    command: string[],
    labels: Record<string, string> = {},
  ): V1Pod {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { ...this.runLabel, ...labels } },
      spec: {
        runtimeClassName: runtimeClass,
        nodeSelector: { 'kubernetes.io/hostname': hostnameLabel(node) },
        // A service-account token volume adds its own set-up to every start; benchmark pods need none.
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        terminationGracePeriodSeconds: DELETE_GRACE_SECONDS,
        restartPolicy: 'Never',
        containers: [
          {
            name: 'bench',
            image: this.target.image,
            imagePullPolicy: this.target.imagePullPolicy,
            command,
          },
        ],
      },
    };
  }

  async createPod(body: V1Pod): Promise<void> {
    await this.core.createNamespacedPod({ namespace: this.namespace, body });
  }

  /** The kubelet's cumulative CRI operation times (null when it exposes none). */
  async kubeletSums(node: V1Node): Promise<Map<string, number> | null> {
    try {
      const text = await this.core.connectGetNodeProxyWithPath({
        name: node.metadata!.name!,
        path: 'metrics',
      });
      return runtimeOperationSums(String(text));
    } catch {
      // The apiserver's node proxy refuses loopback node addresses (a local test cluster's kubelet
      // is reached as "localhost"): ask that kubelet directly with the kubeconfig's credentials.
      return this.kubeletSumsDirect(node).catch(() => null);
    }
  }

  private async kubeletSumsDirect(node: V1Node): Promise<Map<string, number> | null> {
    const host = node.status?.addresses?.find((a) => a.type === 'Hostname')?.address;
    const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
    if (host !== 'localhost' || !port) return null;
    const opts: https.RequestOptions = { host: '127.0.0.1', port, path: '/metrics', method: 'GET' };
    await this.kc.applyToHTTPSOptions(opts);
    // The kubelet's serving certificate is self-signed; the apiserver does not verify it either.
    opts.rejectUnauthorized = false;
    const text = await new Promise<string>((resolve, reject) => {
      const req = https.request(opts, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.end();
    });
    return runtimeOperationSums(text);
  }

  /**
   * Watches the run's pods matching a field or label selector; the callback gets every event
   * (ADDED, MODIFIED, DELETED) with the moment it arrived on the monotonic clock.
   */
  async watchPods(
    selector: { fieldSelector: string } | { labelSelector: string },
    onPod: (type: string, pod: V1Pod, at: number) => void,
  ): Promise<AbortController> {
    return this.watch.watch(
      `/api/v1/namespaces/${this.namespace}/pods`,
      selector,
      (type, obj) => onPod(type, obj as V1Pod, performance.now()),
      () => undefined,
    );
  }

  /**
   * Asks for a pod's deletion as `kubectl delete --now` does: the kubelet stops its containers and
   * sandbox, then the apiserver lets the object go (a grace period of 0 would drop the object at
   * once and leave the teardown to run on unseen). A pod already gone is no error.
   */
  async requestDeletion(name: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({
        name,
        namespace: this.namespace,
        gracePeriodSeconds: DELETE_GRACE_SECONDS,
      });
    } catch (error) {
      if (statusCode(error) !== 404) throw error;
    }
  }

  /** Deletes a pod and waits until it is gone (so that the next start has the node alone). */
  async deletePod(name: string): Promise<void> {
    await this.requestDeletion(name);
    await waitFor(() => goneProbe(() => this.core.readNamespacedPod({ name, namespace: this.namespace })), {
      what: `pod ${name} gone after its deletion`,
      timeoutMs: this.target.podTimeoutSeconds * 1000,
      intervalMs: 100,
    });
  }

  /**
   * Runs a pod whose container exits, to completion (phase Succeeded), and returns its log; the
   * pod is deleted whatever happens. A failed or stuck pod throws with its reason and log tail.
   * `expectedMs` (the work's own duration) is added to the pod deadline.
   */
  async runToCompletion(
    node: V1Node,
    runtimeClass: string,
    kind: string,
    command: string[],
    expectedMs: number,
    signal: AbortSignal | null,
  ): Promise<string> {
    const name = this.podName(kind, runtimeClass);
    try {
      await this.createPod(this.podBody(name, node, runtimeClass, command));
      const deadline = performance.now() + this.target.podTimeoutSeconds * 1000 + expectedMs;
      for (;;) {
        if (signal?.aborted) throw new InterruptedError();
        const pod = await this.core.readNamespacedPod({ name, namespace: this.namespace });
        if (pod.status?.phase === 'Succeeded') break;
        const stuck = completionStuck(pod);
        if (pod.status?.phase === 'Failed' || stuck) {
          const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
          const log = await this.core
            .readNamespacedPodLog({ name, namespace: this.namespace, tailLines: 3 })
            .then((t) => String(t).trim().split('\n').join(' | '))
            .catch(() => '');
          throw new Error(
            `pod ${name}: ${stuck ?? `failed (exit ${terminated?.exitCode ?? '?'}${terminated?.reason ? `, ${terminated.reason}` : ''})`}${log ? `; log ends: ${log}` : ''}`,
          );
        }
        if (performance.now() > deadline) throw new Error(`pod ${name} did not complete in time`);
        await sleep(200);
      }
      return String(await this.core.readNamespacedPodLog({ name, namespace: this.namespace }));
    } finally {
      await this.deletePod(name).catch(() => undefined);
    }
  }

  /** Runs the probe pod on the node and returns what it printed (null, with a log line, on failure). */
  async probe(node: V1Node, runtimeClass: string, log: (line: string) => void): Promise<NodeProbe | null> {
    try {
      const text = await this.runToCompletion(
        node,
        runtimeClass,
        'probe',
        ['/bin/sh', '-c', PROBE_SCRIPT],
        0,
        null,
      );
      return parseProbe(text);
    } catch (error) {
      log(`node ${node.metadata!.name!}: no probe (${errorMessage(error)}): CPU model unknown`);
      return null;
    }
  }
}
