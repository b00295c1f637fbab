// Verification of downloads: published checksum files, the pinned table, and hashing.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { RbError } from '../errors.ts';
import { PINNED_CHECKSUMS } from './pinned-checksums.ts';

export type Algorithm = 'sha256' | 'sha512';

const HEX_LENGTH: Record<Algorithm, number> = { sha256: 64, sha512: 128 };

/**
 * The expected digest of `fileName` in a checksum file: either a bare digest (crictl's `.sha256`)
 * or `sha256sum` lines `<hex>  <name>` / `<hex> *<name>` (runc.sha256sum lists every asset).
 * Returns null when the file names other files only, or the digest has the wrong length.
 */
export function parseChecksumFile(text: string, fileName: string, algorithm: Algorithm): string | null {
  const want = HEX_LENGTH[algorithm];
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const line of lines) {
    const m = /^([0-9a-fA-F]+)(?:\s+\*?(.+))?$/.exec(line);
    if (!m || m[1]!.length !== want) continue;
    const name = m[2]?.trim();
    if (name === undefined) {
      if (lines.length === 1) return m[1]!.toLowerCase();
      continue;
    }
    if (name === fileName || name.endsWith(`/${fileName}`)) return m[1]!.toLowerCase();
  }
  return null;
}

/** Hex digest of a file, streamed (release archives are tens of MB). */
export async function digestFile(path: string, algorithm: Algorithm): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Key of the pinned table: `<component>@<version>/<file name>`. */
export function pinKey(component: string, version: string, fileName: string): string {
  return `${component}@${version}/${fileName}`;
}

/** Looks up a pinned digest (`sha256:<hex>` / `sha512:<hex>`), the extra table first. */
export function pinnedDigest(
  key: string,
  algorithm: Algorithm,
  extra: Readonly<Record<string, string>> = {},
): string | null {
  const value = extra[key] ?? PINNED_CHECKSUMS[key];
  if (value === undefined) return null;
  const [alg, hex] = value.includes(':') ? value.split(':', 2) : [algorithm, value];
  if (
    alg !== algorithm ||
    hex === undefined ||
    hex.length !== HEX_LENGTH[algorithm] ||
    !/^[0-9a-f]+$/i.test(hex)
  ) {
    throw new RbError(
      'INSTALL_PIN_INVALID',
      `pinned checksum for ${key} is not a ${algorithm} digest: "${value}"`,
    );
  }
  return hex.toLowerCase();
}
