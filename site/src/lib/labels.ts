// How the site names a combination (CRI runtime × handler) and a result's target, with or without
// its versions. Pure.
import type { Target } from '@runtime-bench/schemas';
import type { ComboRef, KubernetesRef } from './site-index.ts';

/**
 * The label of a combination with its versions, e.g. "containerd 1.7.2 · runc 1.1.5", or for a
 * pod-level target "node-1 × RuntimeClass gvisor (handler runsc) · kubelet v1.34.4 · containerd 2.1.4"
 * (its OCI runtime's version is not known through the Kubernetes API).
 */
export function comboLabel(c: ComboRef): string {
  if (c.kubernetes) return `${kubernetesTargetLabel(c)} · ${c.criName} ${c.criVersion}`;
  const handler = c.handler === c.ociName ? '' : ` (handler ${c.handler})`;
  return `${c.criName} ${c.criVersion} · ${c.ociName} ${c.ociVersion}${handler}`;
}

/** A pod-level target as node × RuntimeClass with its handler and kubelet. */
export function kubernetesTargetLabel(c: {
  handler: string;
  kubernetes?: KubernetesRef | null | undefined;
}): string {
  const k = c.kubernetes!;
  return `${k.node} × RuntimeClass ${k.runtimeClass} (handler ${c.handler}) · kubelet ${k.kubeletVersion}`;
}

/**
 * A result's target with its versions: "containerd 2.1.9 · runc 1.3.6", or for a pod-level target
 * its node, RuntimeClass, handler and kubelet (the Kubernetes API does not tell the OCI runtime's
 * version).
 */
export function targetVersionsLabel(t: Target): string {
  if (t.kubernetes) return `${kubernetesTargetLabel(t)} · ${t.cri.name} ${t.cri.version}`;
  return `${t.cri.name} ${t.cri.version} · ${t.oci.name} ${t.oci.version}`;
}
