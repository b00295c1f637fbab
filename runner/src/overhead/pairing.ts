// Which targets may stand beside each other for an overhead over the CRI, per layer: an engine
// target beside a CRI-level target of the same OCI runtime version; a pod-level target beside a
// CRI-level target of the same CRI runtime and runtime handler. Where the two may come from is
// the caller's half of the rule: for engines the same run, else a run on the identical host
// (hostKey); for Kubernetes the same host class (the site's node class). The rules take a flat
// target so that both a result's targets (pairingTarget) and the site's digest rows fit. Pure.
import type { HostFingerprint, Target } from '@runtime-bench/schemas';
import { canonicalJson } from '../results/assemble.ts';
import type { OverheadLayer } from './counterparts.ts';

/** The fields of a target the pairing rules read. */
export interface PairingTarget {
  transport: Target['transport'];
  criName: string;
  criVersion: string;
  handler: string;
  ociName: string;
  ociVersion: string;
}

/** A result's target as the pairing rules read it. */
export const pairingTarget = (t: Target): PairingTarget => ({
  transport: t.transport,
  criName: t.cri.name,
  criVersion: t.cri.version,
  handler: t.handler,
  ociName: t.oci.name,
  ociVersion: t.oci.version,
});

/** A target measured through an engine's CLI. */
export const isEngineTarget = (t: Pick<PairingTarget, 'transport'>): boolean => t.transport === 'engine';

/** A target measured straight over the CRI (grpc or crictl), neither through an engine nor a cluster. */
export const isCriLevelTarget = (t: Pick<PairingTarget, 'transport'>): boolean =>
  t.transport === 'grpc' || t.transport === 'crictl';

/**
 * Whether an engine target and a CRI-level target ran the same OCI runtime: the same kind at the
 * same known version (a different build of that version is named in a note, not refused).
 */
export function sameOciRuntime(
  engine: Pick<PairingTarget, 'ociName' | 'ociVersion'>,
  cri: Pick<PairingTarget, 'ociName' | 'ociVersion'>,
): boolean {
  return (
    engine.ociName === cri.ociName &&
    engine.ociVersion === cri.ociVersion &&
    engine.ociVersion !== 'unknown' &&
    engine.ociVersion !== ''
  );
}

/**
 * Whether a pod-level target and a CRI-level target ran the same CRI runtime with the same runtime
 * handler (a node's OCI runtime version is not reported through the kubelet, so it cannot pair).
 */
export function sameCriAndHandler(
  pod: Pick<PairingTarget, 'criName' | 'handler'>,
  cri: Pick<PairingTarget, 'criName' | 'handler'>,
): boolean {
  return pod.criName === cri.criName && pod.handler === cri.handler;
}

/** Whether `cri` may stand beside `upper`, a target of `layer`: CRI-level, and that layer's rule. */
export function pairsWith(layer: OverheadLayer, upper: PairingTarget, cri: PairingTarget): boolean {
  if (!isCriLevelTarget(cri)) return false;
  return layer === 'engine' ? sameOciRuntime(upper, cri) : sameCriAndHandler(upper, cri);
}

/**
 * The host's fingerprint without the fixes a kind applied (a CRI stack's fixes, none for an engine
 * run): two runs are on the same host when everything else is identical, hostname included. The
 * site pairs runs across by the same key.
 */
export function hostKey(host: HostFingerprint): string {
  const { hostFixes: _fixes, ...rest } = host;
  return canonicalJson(rest);
}
