// The release API's answer taken apart, and the choice of how an asset is verified: plain inputs,
// no network. The digests are written out here, not computed by the code under test.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { COMPONENTS } from '../../../src/install/components.ts';
import { formatPlan, buildPlan } from '../../../src/install/plan.ts';
import {
  githubAssetLocation,
  parseRelease,
  releaseApiUrl,
  releaseAssetDigest,
} from '../../../src/install/release-api.ts';
import { planAssets, releaseApiBase } from '../../../src/install/release.ts';
import { chooseVerification, describeVerification } from '../../../src/install/verification.ts';
import { parseSpecList } from '../../../src/install/components.ts';

const hex = createHash('sha256').update('crun binary').digest('hex');
const ctx = {
  url: 'https://api.test/repos/containers/crun/releases/tags/1.21',
  pinKey: 'crun@1.21/crun-1.21-linux-amd64',
};
const release = (assets: unknown[]) => parseRelease(JSON.stringify({ tag_name: '1.21', assets }), ctx.url);
const thrown = (f: () => unknown): RbError => {
  try {
    f();
  } catch (error) {
    return error as RbError;
  }
  throw new Error('did not throw');
};

describe('GitHub release URLs', () => {
  test('a download URL is taken apart into owner, repository, tag and file', () => {
    expect(
      githubAssetLocation(
        'https://github.com/youki-dev/youki/releases/download/v0.5.0/youki-0.5.0-x86_64-gnu.tar.gz',
      ),
    ).toEqual({ owner: 'youki-dev', repo: 'youki', tag: 'v0.5.0', file: 'youki-0.5.0-x86_64-gnu.tar.gz' });
    expect(
      githubAssetLocation('https://storage.googleapis.com/gvisor/releases/release/20240729.0/x86_64/runsc'),
    ).toBe(null);
    expect(githubAssetLocation('https://github.com/containers/crun/archive/1.21.tar.gz')).toBe(null);
  });

  test('the API URL of a release by tag and of the latest, from any base', () => {
    const where = { owner: 'containers', repo: 'crun' };
    expect(releaseApiUrl('https://api.github.com', where, '1.21')).toBe(
      'https://api.github.com/repos/containers/crun/releases/tags/1.21',
    );
    expect(releaseApiUrl('http://127.0.0.1:8080/api/', where, 'latest')).toBe(
      'http://127.0.0.1:8080/api/repos/containers/crun/releases/latest',
    );
  });

  test('the API base: the one given, else GitHub through the mirror, else GitHub', () => {
    expect(releaseApiBase({ githubApi: 'http://127.0.0.1:1/api', mirror: 'http://m' })).toBe(
      'http://127.0.0.1:1/api',
    );
    expect(releaseApiBase({ mirror: 'http://m/' })).toBe('http://m/api.github.com/');
    expect(releaseApiBase({})).toBe('https://api.github.com');
  });
});

describe('the release object', () => {
  test('extra fields are ignored; the digest of the named asset is returned in lower case', () => {
    const r = parseRelease(
      JSON.stringify({
        tag_name: '1.21',
        name: 'crun 1.21',
        assets: [
          { name: 'crun-1.21-linux-arm64', digest: `sha256:${'0'.repeat(64)}`, size: 1 },
          { name: 'crun-1.21-linux-amd64', digest: `sha256:${hex.toUpperCase()}`, browser_download_url: 'x' },
        ],
      }),
      ctx.url,
    );
    expect(releaseAssetDigest(r, 'crun-1.21-linux-amd64', 'sha256', ctx)).toBe(hex);
  });

  test.each([
    [
      'a page instead of JSON',
      '<html>rate limited</html>',
      /not a release object .*<html>rate limited<\/html>/,
    ],
    ['no assets', '{"tag_name": "1.21"}', /assets/],
    [
      'an asset without a name',
      '{"tag_name": "1.21", "assets": [{"digest": null}]}',
      /assets\.0\.name|assets\[0\]\.name/,
    ],
    ['a digest that is a number', '{"tag_name": "1.21", "assets": [{"name": "a", "digest": 5}]}', /digest/],
  ])(
    'a malformed answer (%s) is an INSTALL_RELEASE_API error naming the URL and the field',
    (_what, text, field) => {
      const error = thrown(() => parseRelease(text, ctx.url));
      expect(error).toBeInstanceOf(RbError);
      expect(error.code).toBe('INSTALL_RELEASE_API');
      expect(error.message).toContain(ctx.url);
      expect(error.message).toMatch(field);
      expect(error.hint).toContain('--github-api');
    },
  );

  test('a missing asset names the ones the release has', () => {
    const error = thrown(() =>
      releaseAssetDigest(
        release([{ name: 'crun-1.21-linux-arm64', digest: null }]),
        'crun-1.21-linux-amd64',
        'sha256',
        ctx,
      ),
    );
    expect(error.code).toBe('INSTALL_RELEASE_API');
    expect(error.message).toBe(
      `${ctx.url}: release 1.21 has no asset "crun-1.21-linux-amd64" (assets: crun-1.21-linux-arm64)`,
    );
  });

  test.each([
    [
      'null (uploaded before June 2025)',
      { digest: null },
      'assets[1].digest of crun-1.21-linux-amd64 is null',
    ],
    ['absent (an older server)', {}, 'assets[1].digest of crun-1.21-linux-amd64 is absent'],
    [
      'of another algorithm',
      { digest: `sha512:${'a'.repeat(128)}` },
      `is "sha512:${'a'.repeat(128)}", not a sha256 digest`,
    ],
    ['too short', { digest: 'sha256:abc' }, 'is "sha256:abc", not a sha256 digest'],
  ])(
    'a digest that is %s: INSTALL_CHECKSUM_MISSING naming the field, the pin key and --source distro',
    (_what, fields, message) => {
      const r = release([
        { name: 'crun-1.21-linux-arm64', digest: `sha256:${hex}` },
        { name: 'crun-1.21-linux-amd64', ...fields },
      ]);
      const error = thrown(() => releaseAssetDigest(r, 'crun-1.21-linux-amd64', 'sha256', ctx));
      expect(error.code).toBe('INSTALL_CHECKSUM_MISSING');
      expect(error.message).toContain(message);
      expect(error.hint).toContain('"crun@1.21/crun-1.21-linux-amd64": "sha256:<hex>"');
      expect(error.hint).toContain('--source distro');
    },
  );
});

describe('how an asset is verified', () => {
  const gh = 'https://github.com/containers/crun/releases/download/1.21/crun-1.21-linux-amd64';
  const base = {
    pinned: null,
    checksumUrl: null,
    assetUrl: gh,
    algorithm: 'sha256' as const,
    apiBase: 'http://api',
  };

  test('order of trust: a pin, then the published checksum file, then the release API', () => {
    expect(chooseVerification({ ...base, pinned: hex, checksumUrl: `${gh}.sha256` })).toEqual({
      by: 'pinned',
      digest: hex,
    });
    expect(chooseVerification({ ...base, checksumUrl: `${gh}.sha256` })).toEqual({
      by: 'checksum file',
      url: `${gh}.sha256`,
    });
    expect(chooseVerification(base)).toEqual({
      by: 'release-api digest',
      url: 'http://api/repos/containers/crun/releases/tags/1.21',
    });
  });

  test('nothing verifies an asset off GitHub without a checksum file, nor a sha512 one (the API has sha256 only)', () => {
    expect(chooseVerification({ ...base, assetUrl: 'https://example.org/crun' })).toBe(null);
    expect(chooseVerification({ ...base, algorithm: 'sha512' })).toBe(null);
  });

  test('the catalogue: crun and youki by the API, runc by its checksum file, a pin before either', () => {
    const methods = (name: 'crun' | 'youki' | 'runc', version: string, checksums = {}) =>
      planAssets(COMPONENTS[name], version, 'x64', { checksums }).map((p) => [p.file, p.method]);
    expect(methods('crun', '1.25')).toEqual([
      [
        'crun-1.25-linux-amd64',
        { by: 'release-api digest', url: 'https://api.github.com/repos/containers/crun/releases/tags/1.25' },
      ],
    ]);
    expect(methods('youki', '0.5.0')).toEqual([
      [
        'youki-0.5.0-x86_64-gnu.tar.gz',
        {
          by: 'release-api digest',
          url: 'https://api.github.com/repos/youki-dev/youki/releases/tags/v0.5.0',
        },
      ],
    ]);
    expect(methods('runc', '1.3.6')).toEqual([
      [
        'runc.amd64',
        {
          by: 'checksum file',
          url: 'https://github.com/opencontainers/runc/releases/download/v1.3.6/runc.sha256sum',
        },
      ],
    ]);
    expect(
      methods('youki', '0.5.0', { 'youki@0.5.0/youki-0.5.0-x86_64-gnu.tar.gz': `sha256:${hex}` }),
    ).toEqual([['youki-0.5.0-x86_64-gnu.tar.gz', { by: 'pinned', digest: hex }]]);
  });

  test('an asset nothing can verify is refused while planning, with the install error and its fixes', () => {
    const offGithub = {
      ...COMPONENTS.crun,
      release: [
        { url: 'https://example.org/crun-{version}', algorithm: 'sha256' as const, kind: 'binary' as const },
      ],
    };
    const error = thrown(() => planAssets(offGithub, '1.21', 'x64', {}));
    expect(error.code).toBe('INSTALL_CHECKSUM_MISSING');
    expect(error.message).toBe(
      'crun 1.21: no published checksum, no release API digest and no pinned sha256 digest for crun-1.21',
    );
    expect(error.hint).toContain('"crun@1.21/crun-1.21": "sha256:<hex>"');
    expect(error.hint).toContain('--source distro');
  });

  test('the plan prints each method, and says nothing is verified where it was not checked', () => {
    const plan = buildPlan({
      specs: parseSpecList('crun@1.25'),
      source: 'release',
      prefix: '/opt/rb',
      suites: [],
    });
    const checked = formatPlan(plan, [
      {
        version: '1.25',
        assets: [
          {
            file: 'crun-1.25-linux-amd64',
            algorithm: 'sha256',
            by: 'release-api digest',
            from: 'http://api/repos/containers/crun/releases/tags/1.25',
            digest: hex,
          },
        ],
      },
    ]);
    expect(checked).toContain(
      "verify crun-1.25-linux-amd64: sha256 from the release API's asset digest (http://api/repos/containers/crun/releases/tags/1.25)",
    );
    expect(formatPlan(plan)).not.toMatch(/verif/);
    expect(
      describeVerification({
        file: 'runc.amd64',
        algorithm: 'sha256',
        by: 'pinned',
        from: 'the pinned table',
      }),
    ).toBe('runc.amd64: sha256 pinned in the repository or --checksums');
  });
});
