// The `debian-source` source against the archive: each suite's Sources index through a private
// apt (its signature checked by apt against the archive keyring, as the distro source's Packages
// are), and the orig tarball of one version downloaded and checked against the sha256 that
// signed index gives. The parsing and choosing is debian-source.ts.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RbError, errorMessage } from '../errors.ts';
import { digestFile } from './checksum.ts';
import { archiveUrl, origTarball, parseShowsrc, type SourceFile, type SourceOffer } from './debian-source.ts';
import { DEFAULT_DEBIAN_MIRROR, PrivateApt } from './distro.ts';
import type { InstallEnv } from './env.ts';

export interface DebianSourceOptions {
  prefix: string;
  suites: readonly string[];
  mirror?: string;
}

/** Every version of source package `pkg` in the suites, in the order searched. */
export async function debianSourceOffers(
  env: InstallEnv,
  pkg: string,
  options: DebianSourceOptions,
): Promise<SourceOffer[]> {
  const offers: SourceOffer[] = [];
  for (const suite of options.suites) {
    const apt = new PrivateApt(
      env,
      options.prefix,
      suite,
      options.mirror ?? DEFAULT_DEBIAN_MIRROR,
      'deb-src',
    );
    try {
      offers.push(...parseShowsrc(await apt.showsrc(pkg), pkg, suite));
    } catch (error) {
      throw new RbError(
        'VERSIONS_UNAVAILABLE',
        `cannot read the Sources index of ${suite} from ${apt.mirror}: ${errorMessage(error).split('\n').slice(-2).join(' ')}`,
        'check the network and --debian-mirror, or leave that suite out (--suites)',
      );
    }
  }
  return offers;
}

/**
 * Downloads the offer's orig tarball into `dir` and checks its sha256 against the index; the
 * file is removed unless it matches. Returns its path and the file entry it was checked against.
 */
export async function fetchOrigTarball(
  env: InstallEnv,
  offer: SourceOffer,
  pkg: string,
  dir: string,
  mirror: string = DEFAULT_DEBIAN_MIRROR,
): Promise<{ path: string; file: SourceFile; url: string }> {
  const file = origTarball(offer, pkg);
  const url = archiveUrl(mirror, offer, file);
  await mkdir(dir, { recursive: true });
  const path = join(dir, file.name);
  env.log(`${pkg} ${offer.version}: downloading ${url} (${offer.suite}, ${offer.debianVersion})`);
  let response: Response;
  try {
    response = await env.fetch(url);
  } catch (error) {
    throw new RbError(
      'INSTALL_DOWNLOAD',
      `${url}: ${errorMessage(error)}`,
      'check the network and --debian-mirror',
    );
  }
  if (!response.ok || !response.body)
    throw new RbError(
      'INSTALL_DOWNLOAD',
      `${url}: HTTP ${response.status}: the archive lists ${file.name} for ${pkg} ${offer.debianVersion} (${offer.suite}) but does not serve it`,
      'try another version (runtime-bench versions crun --source debian-source) or another --debian-mirror',
    );
  await pipeline(Readable.fromWeb(response.body as never), createWriteStream(path));
  const digest = await digestFile(path, 'sha256');
  if (digest !== file.sha256) {
    await rm(path, { force: true });
    throw new RbError(
      'INSTALL_CHECKSUM_MISMATCH',
      `${url}: sha256 ${digest}, but ${offer.suite}'s Sources index gives ${file.sha256}`,
      'the download is not the file the signed index names: try again, or another mirror',
    );
  }
  return { path, file, url };
}
