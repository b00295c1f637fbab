// What the image.* benchmarks read from a stack's registry over the distribution HTTP API: an
// image's manifest (its layers and their compressed sizes, the bytes a pull moves). The
// registry, not our build, is the source of truth: what it serves is what the runtime pulls.
import { z } from 'zod';

const DescriptorSchema = z.object({ mediaType: z.string(), digest: z.string(), size: z.number() });
const ManifestSchema = z.object({ config: DescriptorSchema, layers: z.array(DescriptorSchema).min(1) });

export interface PushedImage {
  /** The full reference to pull, e.g. 127.0.0.1:41234/runtime-bench/image-small-gzip-v0:s-… */
  reference: string;
  manifestDigest: string;
  configDigest: string;
  layers: { digest: string; size: number; mediaType: string }[];
  /** Compressed bytes of all layers: what a cold pull transfers. */
  layerBytes: number;
  /** The config's diff_ids: the layers' uncompressed digests. */
  diffIds: string[];
}

const ConfigSchema = z.object({ rootfs: z.object({ diff_ids: z.array(z.string()) }) });

const ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/** Parses a manifest body (pure); throws naming what is missing. */
export function parseManifest(
  reference: string,
  manifestDigest: string,
  body: unknown,
  config: unknown,
): PushedImage {
  const m = ManifestSchema.parse(body);
  return {
    diffIds: ConfigSchema.parse(config).rootfs.diff_ids,
    reference,
    manifestDigest,
    configDigest: m.config.digest,
    layers: m.layers.map((l) => ({ digest: l.digest, size: l.size, mediaType: l.mediaType })),
    layerBytes: m.layers.reduce((sum, l) => sum + l.size, 0),
  };
}

/** The image `repository:tag` in the registry at `address`, or null when it has none. */
export async function lookupImage(
  address: string,
  repository: string,
  tag: string,
): Promise<PushedImage | null> {
  const r = await fetch(`http://${address}/v2/${repository}/manifests/${tag}`, {
    headers: { accept: ACCEPT },
    signal: AbortSignal.timeout(10_000),
  });
  if (r.status === 404) {
    await r.body?.cancel();
    return null;
  }
  if (!r.ok) throw new Error(`registry ${address}: GET manifest ${repository}:${tag}: HTTP ${r.status}`);
  const digest = r.headers.get('docker-content-digest') ?? '';
  const manifest: unknown = await r.json();
  const configDigest = ManifestSchema.parse(manifest).config.digest;
  const c = await fetch(`http://${address}/v2/${repository}/blobs/${configDigest}`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!c.ok) throw new Error(`registry ${address}: GET config ${configDigest}: HTTP ${c.status}`);
  return parseManifest(`${address}/${repository}:${tag}`, digest, manifest, await c.json());
}
