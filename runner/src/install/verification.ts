// How one release asset is verified, decided before anything is downloaded. The order of trust:
// a digest pinned in the repository (or --checksums) first, then the checksum file the project
// publishes beside the asset, then the digest GitHub's release API reports for it. No method at
// all is an error: nothing unverified is installed. Pure: install and `install --dry-run` both
// decide here, so the plan says what the install will do.
import { RbError } from '../errors.ts';
import type { Algorithm } from './checksum.ts';
import { githubAssetLocation, releaseApiUrl } from './release-api.ts';

export const VERIFICATION_KINDS = ['pinned', 'checksum file', 'release-api digest'] as const;
export type VerificationKind = (typeof VERIFICATION_KINDS)[number];

export type VerificationMethod =
  | { by: 'pinned'; digest: string }
  | { by: 'checksum file'; url: string }
  | { by: 'release-api digest'; url: string };

/** What verified (or will verify) one asset; `digest` is null in a plan until the source is read. */
export interface AssetVerification {
  file: string;
  algorithm: Algorithm;
  by: VerificationKind;
  /** The checksum file's or the API's URL, or `the pinned table`. */
  from: string;
  digest: string | null;
}

/**
 * The strongest method available for an asset: its pin, its published checksum file, the release
 * API (GitHub-hosted sha256 assets only: the API reports sha256 alone); null when none applies.
 */
export function chooseVerification(input: {
  pinned: string | null;
  checksumUrl: string | null;
  assetUrl: string;
  algorithm: Algorithm;
  apiBase: string;
}): VerificationMethod | null {
  if (input.pinned !== null) return { by: 'pinned', digest: input.pinned };
  if (input.checksumUrl !== null) return { by: 'checksum file', url: input.checksumUrl };
  const github = githubAssetLocation(input.assetUrl);
  if (github && input.algorithm === 'sha256')
    return { by: 'release-api digest', url: releaseApiUrl(input.apiBase, github, github.tag) };
  return null;
}

/** Where a method's digest comes from, as messages and the record say it. */
export function methodSource(method: VerificationMethod): string {
  return method.by === 'pinned' ? 'the pinned table' : method.url;
}

/** The error of an asset no method can verify: the same from install and from its plan. */
export function unverifiableError(label: string, file: string, algorithm: Algorithm, key: string): RbError {
  return new RbError(
    'INSTALL_CHECKSUM_MISSING',
    `${label}: no published checksum, no release API digest and no pinned ${algorithm} digest for ${file}`,
    `add "${key}": "${algorithm}:<hex>" to runner/src/install/pinned-checksums.ts or a --checksums file, or use --source distro; nothing unverified is installed`,
  );
}

/** One line of `install --dry-run`: how an asset will be verified. */
export function describeVerification(
  v: Pick<AssetVerification, 'file' | 'algorithm' | 'by' | 'from'>,
): string {
  switch (v.by) {
    case 'pinned':
      return `${v.file}: ${v.algorithm} pinned in the repository or --checksums`;
    case 'checksum file':
      return `${v.file}: ${v.algorithm} from the published checksum file ${v.from}`;
    case 'release-api digest':
      return `${v.file}: ${v.algorithm} from the release API's asset digest (${v.from})`;
  }
}
