// GitHub's release API as a source of asset digests. Since June 2025 every asset object of
// GET /repos/{owner}/{repo}/releases/tags/{tag} (and /releases/latest) carries
// `"digest": "sha256:<hex>"`, computed by GitHub at upload; assets uploaded before then have
// `digest: null`. Projects that publish no checksum file (crun, youki) are verified against it.
// The parsing and selection here are pure; the one request goes through the injected fetch.
import { z } from 'zod';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';
import type { Algorithm } from './checksum.ts';
import type { InstallEnv } from './env.ts';

/** Where the API is unless told otherwise (`--github-api`, `RB_GITHUB_API`). */
export const DEFAULT_GITHUB_API = 'https://api.github.com';

/** The part of a release object the installer reads; anything else in the answer is ignored. */
export const GithubReleaseSchema = z.object({
  tag_name: z.string().min(1),
  assets: z.array(
    z.object({
      name: z.string().min(1),
      /** `sha256:<hex>`; null (or absent, on older GitHub Enterprise servers) when GitHub has none. */
      digest: z.string().nullable().optional(),
    }),
  ),
});
export type GithubRelease = z.output<typeof GithubReleaseSchema>;

/** A GitHub release download URL, taken apart. */
export interface GithubAssetLocation {
  owner: string;
  repo: string;
  tag: string;
  file: string;
}

/** `https://github.com/<owner>/<repo>/releases/download/<tag>/<file>` → its parts; null for any other URL. */
export function githubAssetLocation(url: string): GithubAssetLocation | null {
  const m = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/releases\/download\/([^/]+)\/([^/?#]+)$/.exec(url);
  if (!m) return null;
  return {
    owner: m[1]!,
    repo: m[2]!,
    tag: decodeURIComponent(m[3]!),
    file: decodeURIComponent(m[4]!),
  };
}

/** The API URL of one release: by tag, or `latest`. */
export function releaseApiUrl(
  apiBase: string,
  where: { owner: string; repo: string },
  tag: string | 'latest',
): string {
  const base = apiBase.replace(/\/+$/, '');
  const release = tag === 'latest' ? 'latest' : `tags/${encodeURIComponent(tag)}`;
  return `${base}/repos/${where.owner}/${where.repo}/releases/${release}`;
}

/** Parses the API's answer; a page that is not JSON or lacks the fields read is an error naming them. */
export function parseRelease(text: string, url: string): GithubRelease {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RbError(
      'INSTALL_RELEASE_API',
      `${url}: not a release object (${errorMessage(error)}: ${text.trim().slice(0, 120) || 'empty'})`,
      'check --github-api (RB_GITHUB_API) points at the GitHub REST API, or use --source distro',
    );
  }
  return parseWithFriendlyErrors(GithubReleaseSchema, json, url, {
    code: 'INSTALL_RELEASE_API',
    hint: 'check --github-api (RB_GITHUB_API) points at the GitHub REST API, or use --source distro',
  });
}

const HEX_LENGTH: Record<Algorithm, number> = { sha256: 64, sha512: 128 };

/**
 * The hex digest of `file` in a release. Throws when the asset is missing, has no digest (null:
 * uploaded before GitHub computed them), or a digest of another algorithm than the one we check.
 */
export function releaseAssetDigest(
  release: GithubRelease,
  file: string,
  algorithm: Algorithm,
  context: { url: string; pinKey: string },
): string {
  const index = release.assets.findIndex((a) => a.name === file);
  const noDigestHint = `pin it: add "${context.pinKey}": "${algorithm}:<hex>" to runner/src/install/pinned-checksums.ts or a --checksums file, from a download you checked yourself; or use --source distro; nothing unverified is installed`;
  if (index < 0) {
    throw new RbError(
      'INSTALL_RELEASE_API',
      `${context.url}: release ${release.tag_name} has no asset "${file}" (assets: ${release.assets.map((a) => a.name).join(', ') || 'none'})`,
      'check the version and architecture, or use --source distro',
    );
  }
  const field = `assets[${index}].digest`;
  const digest = release.assets[index]!.digest;
  if (digest === null || digest === undefined) {
    throw new RbError(
      'INSTALL_CHECKSUM_MISSING',
      `${context.url}: ${field} of ${file} is ${digest === null ? 'null' : 'absent'}: GitHub computes asset digests only for uploads since June 2025, and the project publishes no checksum file`,
      noDigestHint,
    );
  }
  const m = /^([a-z0-9-]+):([0-9a-fA-F]+)$/.exec(digest);
  if (!m || m[1] !== algorithm || m[2]!.length !== HEX_LENGTH[algorithm]) {
    throw new RbError(
      'INSTALL_CHECKSUM_MISSING',
      `${context.url}: ${field} of ${file} is "${digest}", not a ${algorithm} digest ("${algorithm}:<${HEX_LENGTH[algorithm]} hex digits>")`,
      noDigestHint,
    );
  }
  return m[2]!.toLowerCase();
}

/** The headers of an API request: JSON, the API version, and the bearer token when there is one. */
export function apiHeaders(token?: string): Record<string, string> {
  return {
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/**
 * Fetches a release object. The token (GITHUB_TOKEN) goes into this request's header only, and
 * only when given: the API's rate limit for anonymous callers is 60 requests an hour.
 */
export async function fetchRelease(env: InstallEnv, url: string, token?: string): Promise<GithubRelease> {
  let response: Response;
  try {
    response = await env.fetch(url, { headers: apiHeaders(token) });
  } catch (error) {
    throw new RbError(
      'INSTALL_DOWNLOAD',
      `cannot read ${url}: ${errorMessage(error)}`,
      'check the network or --github-api; or use --source distro',
    );
  }
  if (!response.ok) {
    throw new RbError(
      'INSTALL_DOWNLOAD',
      `cannot read ${url}: HTTP ${response.status}`,
      response.status === 404
        ? 'check the version exists upstream'
        : 'a 403 or 429 is the rate limit: set GITHUB_TOKEN; or use --source distro',
    );
  }
  return parseRelease(await response.text(), url);
}
