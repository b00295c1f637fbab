// Property tests over what other servers and programs answer: the GitHub releases API (through a
// mirror or proxy that may answer with a page of its own), the Go module proxy's `.info` files and
// version lists, and a component's `--version`. Arbitrary answers give a value of the expected
// form or an RbError naming where the answer came from; never another exception, never a version
// or commit that is not one.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { resolveLatestRelease } from '../../../src/install/release.ts';
import { moduleOrigin, moduleSource, proxyInfoUrls } from '../../../src/install/module-source.ts';
import { parseGoVersions, selectRange } from '../../../src/install/available.ts';
import { parseReportedVersion } from '../../../src/install/versions.ts';
import { COMPONENTS, parseSpec } from '../../../src/install/components.ts';
import type { InstallEnv } from '../../../src/install/env.ts';
import { parseEngineDaemon, parseEngineInfo } from '../../../src/engine/plan.ts';

/** An install env whose every download answers `status` with `body`. */
const answering = (status: number, body: string): InstallEnv => ({
  run: () => Promise.reject(new Error('no commands here')),
  fetch: () => Promise.resolve(new Response(body, { status })),
  log: () => {},
  hostGlibc: null,
  arch: 'x64',
  cli: [],
});

/** A JSON answer of the shape of the releases API with an arbitrary tag_name. */
const releaseAnswer = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .oneof(
      fc.string(),
      fc.constantFrom(
        '',
        'v',
        '../../../etc',
        'v1.2.3 --x',
        'v1.2.3\n',
        'latest',
        'v1.3.6',
        `v${'1'.repeat(65536)}`,
      ),
    )
    .map((tag) => JSON.stringify({ tag_name: tag })),
);

describe('the releases API', () => {
  const runc = COMPONENTS.runc;

  test('an arbitrary answer: a version parseSpec takes, or an RbError naming the API URL', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 404, 500), releaseAnswer, async (status, body) => {
        try {
          const version = await resolveLatestRelease(answering(status, body), runc, {});
          // What install does next: a directory named after the version, a spec that names it.
          expect(parseSpec(`runc@${version}`)).toEqual({ name: 'runc', version, path: null });
        } catch (error) {
          expect(error).toBeInstanceOf(RbError);
          expect((error as RbError).message).toContain(
            'https://api.github.com/repos/opencontainers/runc/releases/latest',
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  test('a tag from the grammar is the version without its "v"', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(40), fc.nat(40), fc.nat(40), async (a, b, c) => {
        const env = answering(200, JSON.stringify({ tag_name: `v${a}.${b}.${c}`, name: 'x' }));
        expect(await resolveLatestRelease(env, runc, {})).toBe(`${a}.${b}.${c}`);
      }),
      { numRuns: 50 },
    );
  });

  test.each(['../../../etc', 'v1.2.3 --x', '', 'v', `v1.${'0'.repeat(200)}`])(
    'tag_name %j is refused, the answer named',
    async (tag) => {
      await expect(
        resolveLatestRelease(answering(200, JSON.stringify({ tag_name: tag })), runc, {}),
      ).rejects.toThrow(/releases\/latest: tag_name .* is not a version/);
    },
  );
});

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const infoText = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record({
      Version: fc.oneof(fc.string(), fc.constant('v1.2.3')),
      Origin: fc.record(
        {
          VCS: fc.constant('git'),
          Hash: fc.oneof(fc.string(), hex(40), hex(64), hex(39)),
          Ref: fc.oneof(
            fc.string(),
            fc.constantFrom('refs/tags/v1.2.3', 'refs/tags/v1.2.3 -X main.x=y', 'refs/heads/main'),
          ),
        },
        { requiredKeys: [] },
      ),
    })
    .map((v) => JSON.stringify(v)),
);

describe('the module proxy', () => {
  test('arbitrary .info answers: a commit id and a tag without spaces, or none with a note', () => {
    fc.assert(
      fc.property(fc.array(fc.option(infoText), { maxLength: 3 }), (texts) => {
        const infos = texts.map((text, i) => ({ source: `proxy${i}`, text }));
        const origin = moduleOrigin({ Path: 'github.com/opencontainers/runc', Version: 'v1.2.3' }, infos);
        if (origin.commit === null)
          expect(origin.note).toMatch(/^github\.com\/opencontainers\/runc@v1\.2\.3: /);
        else expect(origin.commit).toMatch(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);
        // What the build stamps with -ldflags "-X …", which go splits at spaces.
        const source = moduleSource('github.com/opencontainers/runc', { Version: 'v1.2.3' }, infos);
        expect(source.describe).toMatch(/^\S+$/);
        expect(source.tag).toMatch(/^\S+$/);
      }),
      { numRuns: 1000 },
    );
  });

  test('a Ref with a space is no tag: it never reaches the stamps', () => {
    const hash = 'a'.repeat(40);
    const source = moduleSource(
      'github.com/opencontainers/runc',
      { Version: 'v1.2.3', Origin: { Hash: hash, Ref: 'refs/tags/v1.2.3 -X main.gitCommit=evil' } },
      [],
    );
    expect(source.describe).toBe(`v1.2.3-0-g${hash.slice(0, 8)}`);
  });

  test('arbitrary version lists: only semantic versions, newest first; a range of them or an RbError', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('v1.2.3', 'v1.10.0', 'v2.0.0-rc.1', 'v1.2', '../x')), {
          maxLength: 12,
        }),
        fc.string(),
        fc.string(),
        (words, from, to) => {
          const versions = parseGoVersions(`github.com/opencontainers/runc ${words.join(' ')}`);
          for (const v of versions) expect(() => parseSpec(`runc@${v}`)).not.toThrow();
          try {
            const picked = selectRange(versions, versions[versions.length - 1] ?? from, versions[0] ?? to);
            expect(picked.every((v) => versions.includes(v))).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(RbError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('arbitrary GOPROXY: only http(s) proxies asked, never a throw', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (goproxy, version) => {
        for (const url of proxyInfoUrls(goproxy, 'github.com/Opencontainers/runc', version))
          expect(url).toMatch(/^https?:\/\/.*\/github\.com\/!opencontainers\/runc\/@v\/.*\.info$/);
      }),
    );
  });
});

describe("a component's --version", () => {
  test('arbitrary output: a version without spaces or null', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom('runc', 'runsc', 'containerd'),
        (out, name) => {
          const v = parseReportedVersion(name as 'runc', out);
          if (v !== null) expect(v).toMatch(/^\S+$/);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("an engine's info and version", () => {
  const answer = fc.oneof(
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.constantFrom(
      'null',
      '[]',
      '"x"',
      'WARNING: no swap limit support\n{}',
      '{"Server":{"Components":[null,5]}}',
    ),
    fc
      .record({
        host: fc.jsonValue(),
        store: fc.jsonValue(),
        version: fc.jsonValue(),
        Client: fc.jsonValue(),
      })
      .map((v) => JSON.stringify(v)),
  );

  test('arbitrary answers: the info (every field a non-empty string) or an RbError naming the engine', () => {
    fc.assert(
      fc.property(fc.constantFrom('docker', 'podman', 'nerdctl'), answer, answer, (engine, info, version) => {
        try {
          const parsed = parseEngineInfo(engine as 'docker', info, version);
          for (const v of Object.values(parsed)) expect(v).toMatch(/./);
        } catch (error) {
          expect(error).toBeInstanceOf(RbError);
          expect((error as RbError).message).toMatch(
            new RegExp(`^${engine} (info|version) printed no JSON object`),
          );
        }
        try {
          const daemon = parseEngineDaemon(version);
          if (daemon !== null) expect(typeof daemon.version).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(RbError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
