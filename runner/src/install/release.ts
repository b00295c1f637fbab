// The `release` source: upstream release assets by version, verified before anything is unpacked.
import { chmod, copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RbError, errorMessage } from '../errors.ts';
import { digestFile, parseChecksumFile, pinKey, pinnedDigest } from './checksum.ts';
import { archNames, isVersionText, type ComponentInfo, type ReleaseAsset } from './components.ts';
import type { InstallEnv } from './env.ts';
import type { StagedComponent } from './stage.ts';

export interface ReleaseOptions {
  /** Fetch `https://host/path` from `<mirror>/host/path` instead (a proxy, a cache, a test server). */
  mirror?: string;
  /** Extra pinned digests for this run, keyed like the repository's table. */
  checksums?: Readonly<Record<string, string>>;
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

/** For GitHub-hosted components: the API URL of the latest release. */
export function latestReleaseApiUrl(component: ComponentInfo): string | null {
  const m = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/releases\//.exec(component.release?.[0]?.url ?? '');
  return m ? `https://api.github.com/repos/${m[1]}/${m[2]}/releases/latest` : null;
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

async function fetchText(env: InstallEnv, url: string): Promise<string> {
  const response = await env.fetch(url).catch((error: unknown) => {
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
  const api = latestReleaseApiUrl(component);
  if (!api) {
    throw new RbError(
      'INSTALL_VERSION',
      `${component.name}@latest: its releases are not on GitHub`,
      `name a version, e.g. ${component.name}@<version>`,
    );
  }
  const text = await fetchText(env, applyMirror(api, options.mirror));
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

/**
 * Downloads every asset of a component into `staging`, verifies each digest (pinned table first,
 * then the published checksum file) and only then unpacks. A mismatch or a missing digest throws
 * before anything is unpacked; the caller removes the staging directory.
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
  const assets = component.release ?? [];
  const fetched: { asset: ReleaseAsset; file: string; url: string }[] = [];
  for (const asset of assets) {
    const { url, checksumUrl } = assetUrls(asset, version, env.arch);
    const fileName = basename(new URL(url).pathname);
    const file = join(downloads, fileName);
    env.log(`download ${url}`);
    await download(env, applyMirror(url, options.mirror), file);
    const key = pinKey(component.name, version, fileName);
    let expected = pinnedDigest(key, asset.algorithm, options.checksums);
    let from = 'the pinned table';
    if (expected === null && checksumUrl) {
      const text = await fetchText(env, applyMirror(checksumUrl, options.mirror));
      expected = parseChecksumFile(text, fileName, asset.algorithm);
      from = checksumUrl;
      if (expected === null) {
        throw new RbError(
          'INSTALL_CHECKSUM_MISSING',
          `${checksumUrl} has no ${asset.algorithm} digest for ${fileName}`,
          'pin one with --checksums',
        );
      }
    }
    if (expected === null) {
      throw new RbError(
        'INSTALL_CHECKSUM_MISSING',
        `${component.name} ${version}: no published checksum and no pinned ${asset.algorithm} digest for ${fileName}`,
        `add "${key}": "${asset.algorithm}:<hex>" to runner/src/install/pinned-checksums.ts or a --checksums file; nothing unverified is installed`,
      );
    }
    const actual = await digestFile(file, asset.algorithm);
    if (actual !== expected) {
      throw new RbError(
        'INSTALL_CHECKSUM_MISMATCH',
        `${fileName}: ${asset.algorithm} is ${actual}, but ${from} says ${expected}; nothing was installed`,
        'the download was corrupted or replaced upstream: do not use it; check the version and the pinned digest',
      );
    }
    env.log(`verified ${fileName} (${asset.algorithm} ${actual.slice(0, 16)}…, from ${from})`);
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
    detail: fetched.map((f) => f.url).join(' '),
    patched: [],
  };
}
