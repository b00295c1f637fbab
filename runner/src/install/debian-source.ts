// The `debian-source` source, pure part: what the Debian archive's source packages offer of a
// component (`apt-cache showsrc` of each suite's signed Sources index) and which file of a source
// package is upstream's release tarball (the `.orig.tar.*`), with the sha256 the index gives for
// it. A Debian source package that repacks upstream's tarball (`+ds`, `+dfsg`) is no release
// tarball: it is refused, not built. The fetching is in debian-source-fetch.ts.
import { RbError } from '../errors.ts';
import { compareDotted, parseControlStanzas, upstreamVersion } from './debian.ts';

/** One file a source package lists in `Checksums-Sha256`. */
export interface SourceFile {
  name: string;
  size: number;
  sha256: string;
}

/** One version of a source package in one suite. */
export interface SourceOffer {
  /** Upstream's version (`1.21`), what `versions` lists and `install crun@1.21` names. */
  version: string;
  /** Debian's (`1.21-1`). */
  debianVersion: string;
  suite: string;
  /** The archive directory of its files (`pool/main/c/crun`). */
  directory: string;
  files: SourceFile[];
}

/** `<sha256> <size> <name>` lines of a `Checksums-Sha256` field. */
export function parseChecksumsSha256(field: string): SourceFile[] {
  const out: SourceFile[] = [];
  for (const line of field.split('\n')) {
    const m = /^([0-9a-f]{64})\s+(\d+)\s+(\S+)$/.exec(line.trim());
    if (m) out.push({ sha256: m[1]!, size: Number(m[2]), name: m[3]! });
  }
  return out;
}

/**
 * The versions of source package `pkg` in one suite's `apt-cache showsrc` answer (stanzas of
 * other packages, e.g. one whose Binary names it, are left out; so is a stanza without a
 * directory or sha256 list, which could not be fetched and verified).
 */
export function parseShowsrc(text: string, pkg: string, suite: string): SourceOffer[] {
  return parseControlStanzas(text)
    .filter((f) => f.Package === pkg && f.Version && f.Directory && f['Checksums-Sha256'])
    .map((f) => ({
      version: upstreamVersion(f.Version!),
      debianVersion: f.Version!,
      suite,
      directory: f.Directory!,
      files: parseChecksumsSha256(f['Checksums-Sha256']!),
    }));
}

/** The distinct upstream versions offered, newest first. */
export function offeredVersions(offers: readonly SourceOffer[]): string[] {
  return [...new Set(offers.map((o) => o.version))].sort((a, b) => compareDotted(b, a));
}

/**
 * The offer of a requested version (`1.21`, Debian's `1.21-1`, or `latest`): the first suite
 * that has it, in the order searched. An error lists what is offered.
 */
export function pickOffer(offers: readonly SourceOffer[], pkg: string, requested: string): SourceOffer {
  const newest = offeredVersions(offers)[0];
  const wanted = requested === 'latest' ? newest : requested;
  const match = offers.find((o) => o.version === wanted || o.debianVersion === wanted);
  if (match) return match;
  const have = offers.map((o) => `${o.version} (${o.suite}, ${o.debianVersion})`).join(', ') || 'none';
  throw new RbError(
    'INSTALL_VERSION',
    `the Debian source package ${pkg} ${requested} is in none of the suites searched (${[...new Set(offers.map((o) => o.suite))].join(', ') || 'no answer'})`,
    `available: ${have}; list them with runtime-bench versions ${pkg} --source debian-source`,
  );
}

/**
 * Upstream's release tarball among a source package's files: `<pkg>_<version>.orig.tar.<ext>`
 * (not its `.asc` signature). A repacked one (`1.3.6+ds1`) is Debian's, not upstream's: refused.
 */
export function origTarball(offer: SourceOffer, pkg: string): SourceFile {
  const orig = offer.files.find((f) => /\.orig\.tar\.(gz|xz|bz2|zst)$/.test(f.name));
  const where = `${pkg} ${offer.debianVersion} (${offer.suite})`;
  if (!orig)
    throw new RbError(
      'INSTALL_LAYOUT',
      `${where}: the source package lists no .orig tarball (a native package?)`,
      'use another version, or --source git with a checkout of upstream',
    );
  const origVersion = orig.name.slice(`${pkg}_`.length).replace(/\.orig\.tar\.\w+$/, '');
  if (!orig.name.startsWith(`${pkg}_`) || origVersion !== offer.version)
    throw new RbError(
      'INSTALL_LAYOUT',
      `${where}: its tarball ${orig.name} is a Debian repack, not upstream's release tarball`,
      'use another version, or --source git with a checkout of upstream',
    );
  return orig;
}

/** Where the archive serves a file of a source package. */
export function archiveUrl(mirror: string, offer: SourceOffer, file: SourceFile): string {
  return `${mirror.replace(/\/+$/, '')}/${offer.directory}/${file.name}`;
}
