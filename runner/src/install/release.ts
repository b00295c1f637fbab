// The `release` source: upstream release assets by version, verified before anything is unpacked.
import { chmod, copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RbError, errorMessage } from '../errors.ts';
import { digestFile, parseChecksumFile, pinKey, pinnedDigest } from './checksum.ts';
import { archNames, isVersionText, type ComponentInfo, type ReleaseAsset } from './components.ts';
import type { InstallEnv } from './env.ts';
import {
  DEFAULT_GITHUB_API,
  apiHeaders,
  fetchRelease,
  releaseApiUrl,
  releaseAssetDigest,
  type GithubRelease,
} from './release-api.ts';
import type { StagedComponent } from './stage.ts';
import {
  chooseVerification,
  methodSource,
  unverifiableError,
  type AssetVerification,
  type VerificationMethod,
} from './verification.ts';

export interface ReleaseOptions {
  /** Fetch `https://host/path` from `<mirror>/host/path` instead (a proxy, a cache, a test server). */
  mirror?: string;
  /** Extra pinned digests for this run, keyed like the repository's table. */
  checksums?: Readonly<Record<string, string>>;
  /** GitHub's REST API (default https://api.github.com, through the mirror when one is given). */
  githubApi?: string;
  /** Sent as the API requests' bearer token (GITHUB_TOKEN), never with downloads. */
  githubToken?: string;
}

/** Fills a URL template's placeholders. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** Rewrites an https URL to go through a mirror: `https://github.com/a/b` → `<mirror>/github.com/a/b`. */
export function applyMirror(url: string, mirror: string | undefined): string {
  if (!mirror) return url;
  const u = new URL(url);
  return `${mirror.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

/** The URLs of one asset at one version. */
export function assetUrls(
  asset: ReleaseAsset,
  version: string,
  nodeArch: string,
): { url: string; checksumUrl: string | null } {
  const { arch, uarch } = archNames(nodeArch);
  const url = expandTemplate(asset.url, { version, arch, uarch });
  const checksumUrl = asset.checksumUrl
    ? expandTemplate(asset.checksumUrl, { version, arch, uarch, url })
    : null;
  return { url, checksumUrl };
}

/** The release API's base URL: the one given, else GitHub's, through the mirror when there is one. */
export function releaseApiBase(options: Pick<ReleaseOptions, 'mirror' | 'githubApi'>): string {
  return options.githubApi ?? applyMirror(DEFAULT_GITHUB_API, options.mirror);
}

/** For GitHub-hosted components: the API URL of the latest release. */
export function latestReleaseApiUrl(component: ComponentInfo, apiBase = DEFAULT_GITHUB_API): string | null {
  const m = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/releases\//.exec(component.release?.[0]?.url ?? '');
  return m ? releaseApiUrl(apiBase, { owner: m[1]!, repo: m[2]! }, 'latest') : null;
}

async function download(env: InstallEnv, url: string, dest: string): Promise<void> {
  let response: Response;
  try {
    response = await env.fetch(url);
  } catch (error) {
    throw new RbError(
      'INSTALL_DOWNLOAD',
      `cannot download ${url}: ${errorMessage(error)}`,
      'check the network or --mirror',
    );
  }
  if (!response.ok) {
    throw new RbError(
      'INSTALL_DOWNLOAD',
      `cannot download ${url}: HTTP ${response.status}`,
      'check the version exists upstream',
    );
  }
  await writeFile(dest, Buffer.from(await response.arrayBuffer()));
}

async function fetchText(
  env: InstallEnv,
  url: string,
  init?: { headers?: Record<string, string> },
): Promise<string> {
  const response = await env.fetch(url, init).catch((error: unknown) => {
    throw new RbError('INSTALL_DOWNLOAD', `cannot download ${url}: ${errorMessage(error)}`);
  });
  if (!response.ok) throw new RbError('INSTALL_DOWNLOAD', `cannot download ${url}: HTTP ${response.status}`);
  return response.text();
}

/** Resolves `latest` through the GitHub releases API (tag `v1.2.3` → `1.2.3`). */
export async function resolveLatestRelease(
  env: InstallEnv,
  component: ComponentInfo,
  options: ReleaseOptions,
): Promise<string> {
  const api = latestReleaseApiUrl(component, releaseApiBase(options));
  if (!api) {
    throw new RbError(
      'INSTALL_VERSION',
      `${component.name}@latest: its releases are not on GitHub`,
      `name a version, e.g. ${component.name}@<version>`,
    );
  }
  const text = await fetchText(env, api, { headers: apiHeaders(options.githubToken) });
  // The answer comes from outside (a proxy or mirror may answer with a page of its own).
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const tag = (body as { tag_name?: unknown } | null)?.tag_name;
  if (typeof tag !== 'string')
    throw new RbError(
      'INSTALL_VERSION',
      `${api}: no tag_name in the answer (${text.trim().slice(0, 120) || 'empty'})`,
      `name a version, e.g. ${component.name}@<version>`,
    );
  // The version names the install directory and every asset URL: a tag that is none is refused.
  const version = tag.replace(/^v/, '');
  if (!isVersionText(version))
    throw new RbError(
      'INSTALL_VERSION',
      `${api}: tag_name ${JSON.stringify(tag.slice(0, 120))} is not a version`,
      `name a version, e.g. ${component.name}@<version>`,
    );
  return version;
}

/** One asset of a component at a version: its URLs, file name, pin key and verification method. */
export interface PlannedAsset {
  asset: ReleaseAsset;
  url: string;
  file: string;
  key: string;
  method: VerificationMethod;
}

/**
 * Lays out a component's assets at a version with the method that will verify each; throws the
 * install's own error for an asset nothing can verify. Pure given the pinned tables.
 */
export function planAssets(
  component: ComponentInfo,
  version: string,
  nodeArch: string,
  options: ReleaseOptions,
): PlannedAsset[] {
  return (component.release ?? []).map((asset) => {
    const { url, checksumUrl } = assetUrls(asset, version, nodeArch);
    // Decoded: a plan of `latest` lays out `{version}` placeholders, which URL() escapes.
    const file = decodeURIComponent(basename(new URL(url).pathname));
    const key = pinKey(component.name, version, file);
    const method = chooseVerification({
      pinned: pinnedDigest(key, asset.algorithm, options.checksums),
      checksumUrl,
      assetUrl: url,
      algorithm: asset.algorithm,
      apiBase: releaseApiBase(options),
    });
    if (method === null) throw unverifiableError(`${component.name} ${version}`, file, asset.algorithm, key);
    return { asset, url, file, key, method };
  });
}

/**
 * The digest the API reports for a planned asset (read before anything is downloaded, so a
 * release without one costs no download). Throws naming the field when there is none.
 */
export async function releaseApiDigest(
  env: InstallEnv,
  url: string,
  planned: PlannedAsset,
  options: ReleaseOptions,
  cache: Map<string, GithubRelease> = new Map(),
): Promise<string> {
  let release = cache.get(url);
  if (!release) {
    release = await fetchRelease(env, url, options.githubToken);
    cache.set(url, release);
  }
  return releaseAssetDigest(release, planned.file, planned.asset.algorithm, { url, pinKey: planned.key });
}

/**
 * Downloads every asset of a component into `staging`, verifies each digest (pinned table first,
 * then the published checksum file, then the release API's digest) and only then unpacks. A
 * mismatch or a missing digest throws before anything is unpacked; the caller removes the
 * staging directory.
 */
export async function stageRelease(
  env: InstallEnv,
  component: ComponentInfo,
  version: string,
  staging: string,
  options: ReleaseOptions,
): Promise<StagedComponent> {
  const downloads = join(staging, '.downloads');
  await mkdir(downloads, { recursive: true });
  const fetched: { asset: ReleaseAsset; file: string; url: string }[] = [];
  const verification: AssetVerification[] = [];
  const releases = new Map<string, GithubRelease>();
  for (const planned of planAssets(component, version, env.arch, options)) {
    const { asset, url, method } = planned;
    const fileName = planned.file;
    const file = join(downloads, fileName);
    let expected: string | null =
      method.by === 'pinned'
        ? method.digest
        : method.by === 'release-api digest'
          ? await releaseApiDigest(env, method.url, planned, options, releases)
          : null;
    env.log(`download ${url}`);
    await download(env, applyMirror(url, options.mirror), file);
    if (method.by === 'checksum file') {
      const text = await fetchText(env, applyMirror(method.url, options.mirror));
      expected = parseChecksumFile(text, fileName, asset.algorithm);
      if (expected === null) {
        throw new RbError(
          'INSTALL_CHECKSUM_MISSING',
          `${method.url} has no ${asset.algorithm} digest for ${fileName}`,
          'pin one with --checksums, or use --source distro',
        );
      }
    }
    const from = methodSource(method);
    const actual = await digestFile(file, asset.algorithm);
    if (actual !== expected) {
      throw new RbError(
        'INSTALL_CHECKSUM_MISMATCH',
        `${fileName}: ${asset.algorithm} is ${actual}, but ${from} says ${expected}; nothing was installed`,
        'the download was corrupted or replaced upstream: do not use it; check the version and the pinned digest',
      );
    }
    env.log(`verified ${fileName} (${asset.algorithm} ${actual.slice(0, 16)}…, ${method.by}, from ${from})`);
    verification.push({ file: fileName, algorithm: asset.algorithm, by: method.by, from, digest: actual });
    fetched.push({ asset, file, url });
  }
  // Everything verified: unpack.
  const root = join(staging, 'root');
  await mkdir(root, { recursive: true });
  for (const { asset, file } of fetched) {
    if (asset.kind === 'tar.gz') {
      await env.run('tar', ['-xzf', file, '-C', root, '--no-same-owner']);
    } else {
      const dest = join(root, asset.as ?? basename(file));
      await copyFile(file, dest);
      await chmod(dest, 0o755);
    }
  }
  const binaries: Record<string, string> = {};
  for (const b of component.binaries) if (b.release) binaries[b.name] = join('root', b.release);
  // The verified archives are not needed once unpacked; the record keeps their URLs.
  await rm(downloads, { recursive: true, force: true });
  return {
    binaries,
    detail: `${fetched.map((f) => f.url).join(' ')} (verified: ${[...new Set(verification.map((v) => v.by))].join(', ')})`,
    patched: [],
    verification,
  };
}

/** The placeholder a plan of `latest` shows where the version will go. */
const UNRESOLVED = '{version}';

/**
 * What `install --dry-run` says of a release step: how each asset will be verified, read from the
 * release API where that is the method (resolving `latest` for it), so a release that cannot be
 * verified fails the plan with the install's own error. Other methods are only named here.
 */
export async function checkReleaseStep(
  env: InstallEnv,
  component: ComponentInfo,
  version: string,
  options: ReleaseOptions,
): Promise<{ version: string; assets: AssetVerification[] }> {
  let concrete = version === 'latest' ? UNRESOLVED : version;
  let planned = planAssets(component, concrete, env.arch, options);
  if (concrete === UNRESOLVED && planned.some((p) => p.method.by !== 'checksum file')) {
    concrete = await resolveLatestRelease(env, component, options);
    planned = planAssets(component, concrete, env.arch, options);
  }
  const releases = new Map<string, GithubRelease>();
  const assets: AssetVerification[] = [];
  for (const p of planned) {
    const digest =
      p.method.by === 'pinned'
        ? p.method.digest
        : p.method.by === 'release-api digest'
          ? await releaseApiDigest(env, p.method.url, p, options, releases)
          : null;
    assets.push({
      file: p.file,
      algorithm: p.asset.algorithm,
      by: p.method.by,
      from: methodSource(p.method),
      digest,
    });
  }
  return { version: concrete === UNRESOLVED ? version : concrete, assets };
}
