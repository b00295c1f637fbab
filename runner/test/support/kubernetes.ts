// What the integration tests need of a local Kubernetes: where scripts/build-kubernetes.sh put the
// binaries, whether they are there, and the host sysctls the kubelet changes (cluster down must
// restore them), read here rather than through the code under test.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GrpcCriClient } from '../../src/cri/grpc-client.ts';

export const KUBERNETES_BIN = process.env.RB_KUBERNETES_BIN ?? '/opt/runtime-bench/kubernetes/1.34.4/bin';
const BINARIES = ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'kubelet'];
const SYSCTLS = ['vm/overcommit_memory', 'vm/panic_on_oom', 'kernel/panic', 'kernel/panic_on_oops'];

/** Why no cluster can be brought up here, or null. */
export function kubernetesUnavailable(): string | null {
  const missing = BINARIES.filter((b) => !existsSync(join(KUBERNETES_BIN, b)));
  return missing.length
    ? `no Kubernetes binaries in ${KUBERNETES_BIN} (${missing.join(', ')}): run bash scripts/build-kubernetes.sh`
    : null;
}

export const readSysctls = (): Record<string, string> =>
  Object.fromEntries(SYSCTLS.map((k) => [k, readFileSync(`/proc/sys/${k}`, 'utf8').trim()]));

/**
 * The CRI at `socket`, polled until stop(): which handler each kubelet-made sandbox ran under, by
 * pod name — what the runtime itself says, not what the run reports.
 */
export function sandboxHandlers(socket: string): { stop(): Promise<Map<string, string>> } {
  const cri = new GrpcCriClient(socket, 10);
  const seen = new Map<string, string>();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      for (const p of await cri.listPodSandbox().catch(() => []))
        if (p.labels['io.kubernetes.pod.name'])
          seen.set(p.labels['io.kubernetes.pod.name'], p.runtimeHandler);
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  let stopped: Promise<Map<string, string>> | undefined;
  return {
    // Idempotent: a test stops it to assert, and again in its `finally`.
    stop: () =>
      (stopped ??= (async () => {
        polling = false;
        await poll;
        cri.close();
        return seen;
      })()),
  };
}
