// crun and youki from `--source release`, end to end through the CLI: a loopback HTTP server
// answers as GitHub's release API (`--github-api`, here through RB_GITHUB_API) and serves the
// assets (`--mirror`); the digests are computed here with node:crypto over the bytes served.
// A wrong or missing digest must leave nothing installed and nothing in the prefix (the cache).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runCli } from '../../support/cli.ts';
import { startReleaseServer, type ReleaseServer } from './release-server.ts';

const run = promisify(execFile);
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** The lines of an error report: the message and the hint. */
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => /^(runtime-bench|hint): /.test(l));

const CRUN_ASSET = 'https://github.com/containers/crun/releases/download/1.21/crun-1.21-linux-amd64';
const YOUKI_ASSET =
  'https://github.com/youki-dev/youki/releases/download/v0.5.0/youki-0.5.0-x86_64-gnu.tar.gz';
const TOKEN = 'test-token-for-the-api-only';

let work: string;
let server: ReleaseServer;
let prefix: string;

/** Writes a file the server answers for `<server>/<host>/<path>` of an https URL. */
async function serve(url: string, body: string | Buffer): Promise<Buffer> {
  const u = new URL(url);
  const file = join(work, 'www', u.host, u.pathname);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, body);
  return Buffer.from(body);
}

/** The API's answer for one release, at `<server>/api/repos/<owner>/<repo>/releases/<which>`. */
async function serveRelease(repo: string, which: string, tag: string, assets: object[]): Promise<void> {
  const file = join(work, 'www', 'api', 'repos', repo, 'releases', which);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, JSON.stringify({ tag_name: tag, draft: false, assets }));
}

/** A real executable: a shell script that answers `--version` as crun does. */
const crunScript = '#!/bin/sh\necho "crun version 1.21"\necho "commit: 0123456789abcdef"\n';

async function youkiArchive(): Promise<Buffer> {
  const dir = await mkdtemp(join(work, 'youki-'));
  await writeFile(join(dir, 'youki'), '#!/bin/sh\necho "youki version 0.5.0"\n');
  await chmod(join(dir, 'youki'), 0o755);
  await run('tar', ['-czf', `${dir}.tgz`, '-C', dir, 'youki']);
  return readFile(`${dir}.tgz`);
}

const cliEnv = (extra: Record<string, string> = {}) => ({
  ...process.env,
  RB_GITHUB_API: `${server.url}/api`,
  GITHUB_TOKEN: TOKEN,
  ...extra,
});
const install = (specs: string[], extra: string[] = []) =>
  runCli(['install', '--prefix', prefix, '--mirror', server.url, ...extra, ...specs], { env: cliEnv() });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-digest-'));
  server = await startReleaseServer(join(work, 'www'));
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});
beforeEach(async () => {
  prefix = join(await mkdtemp(join(work, 'p-')), 'opt');
  await rm(join(work, 'www'), { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
  server.authorization.length = 0;
});

// Each test starts the CLI in a new Node process: seconds on a loaded machine, hence a budget.
describe('release source verified by the release API digest (CLI)', { timeout: 60_000 }, () => {
  test('crun and youki install, verified against the digests the API reports; the token goes to the API only', async () => {
    const crun = await serve(CRUN_ASSET, crunScript);
    const youki = await serve(YOUKI_ASSET, await youkiArchive());
    await serveRelease('containers/crun', 'tags/1.21', '1.21', [
      { name: 'crun-1.21-linux-arm64', digest: `sha256:${sha256('arm')}` },
      { name: 'crun-1.21-linux-amd64', digest: `sha256:${sha256(crun)}` },
    ]);
    await serveRelease('youki-dev/youki', 'tags/v0.5.0', 'v0.5.0', [
      { name: 'youki-0.5.0-x86_64-gnu.tar.gz', digest: `sha256:${sha256(youki)}` },
    ]);

    const r = await install(['crun@1.21', 'youki@0.5.0'], ['--json']);
    expect(r.stderr).toContain('crun-1.21-linux-amd64 (sha256');
    expect(r.code).toBe(0);
    const record = JSON.parse(r.stdout) as {
      components: {
        name: string;
        verification: { file: string; by: string; from: string; digest: string }[];
      }[];
      handlers: { name: string; binary: string }[];
    };
    expect(record.components.map((c) => [c.name, c.verification])).toEqual([
      [
        'crun',
        [
          {
            file: 'crun-1.21-linux-amd64',
            algorithm: 'sha256',
            by: 'release-api digest',
            from: `${server.url}/api/repos/containers/crun/releases/tags/1.21`,
            digest: sha256(crun),
          },
        ],
      ],
      [
        'youki',
        [
          {
            file: 'youki-0.5.0-x86_64-gnu.tar.gz',
            algorithm: 'sha256',
            by: 'release-api digest',
            from: `${server.url}/api/repos/youki-dev/youki/releases/tags/v0.5.0`,
            digest: sha256(youki),
          },
        ],
      ],
    ]);
    expect(record.handlers.map((h) => h.name)).toEqual(['crun-1.21', 'youki-0.5.0']);
    expect((await run(join(prefix, 'crun', '1.21', 'bin', 'crun'), ['--version'])).stdout).toBe(
      'crun version 1.21\ncommit: 0123456789abcdef\n',
    );
    expect((await run(join(prefix, 'youki', '0.5.0', 'bin', 'youki'), ['--version'])).stdout).toBe(
      'youki version 0.5.0\n',
    );
    // The bearer token is for the API alone: downloads (here the mirror, upstream a CDN) never see it.
    const api = server.authorization.filter((a) => a.path.startsWith('/api/'));
    const downloads = server.authorization.filter((a) => a.path.startsWith('/github.com/'));
    expect(api.map((a) => a.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    expect(downloads.map((a) => [a.path, a.authorization])).toEqual([
      [new URL(CRUN_ASSET).pathname.replace(/^/, '/github.com'), null],
      [new URL(YOUKI_ASSET).pathname.replace(/^/, '/github.com'), null],
    ]);
  });

  test('a digest that does not match the download: exit 1, the mismatch named, nothing installed or left', async () => {
    await serve(CRUN_ASSET, crunScript);
    const other = sha256('a different binary');
    await serveRelease('containers/crun', 'tags/1.21', '1.21', [
      { name: 'crun-1.21-linux-amd64', digest: `sha256:${other}` },
    ]);
    const r = await install(['crun@1.21']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `runtime-bench: crun-1.21-linux-amd64: sha256 is ${sha256(crunScript)}, but ${server.url}/api/repos/containers/crun/releases/tags/1.21 says ${other}; nothing was installed`,
    );
    expect(await exists(prefix)).toBe(false);
  });

  test.each([
    ['null', { digest: null }, 'assets[0].digest of crun-1.21-linux-amd64 is null'],
    ['absent', {}, 'assets[0].digest of crun-1.21-linux-amd64 is absent'],
    ['sha512', { digest: `sha512:${'ab'.repeat(64)}` }, 'not a sha256 digest'],
  ])(
    'a digest that is %s: exit 1 before any download, the field and the fix named; --dry-run fails the same way',
    async (_what, digest, message) => {
      await serve(CRUN_ASSET, crunScript);
      await serveRelease('containers/crun', 'tags/1.21', '1.21', [
        { name: 'crun-1.21-linux-amd64', ...digest },
      ]);
      const r = await install(['crun@1.21']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toMatch(/\nhint: pin it: .*or use --source distro/);
      expect(server.requests.filter((p) => p.startsWith('/github.com/'))).toEqual([]);
      expect(await exists(prefix)).toBe(false);

      const plan = await install(['crun@1.21'], ['--dry-run']);
      expect(plan.code).toBe(1);
      // The same error and hint (the install's stderr also has its progress lines).
      expect(errorLines(plan.stderr)).toEqual(errorLines(r.stderr));
      expect(errorLines(plan.stderr)).toHaveLength(2);
      expect(plan.stdout).toBe('');
    },
  );

  test('--dry-run of crun@latest reads the latest release and says how its asset will be verified; installs nothing', async () => {
    const crun = await serve(CRUN_ASSET, crunScript);
    const assets = [{ name: 'crun-1.21-linux-amd64', digest: `sha256:${sha256(crun)}` }];
    await serveRelease('containers/crun', 'latest', '1.21', assets);
    await serveRelease('containers/crun', 'tags/1.21', '1.21', assets);
    const r = await install(['crun@latest', 'runc@1.3.6'], ['--dry-run']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `crun@latest              → ${prefix}/crun/1.21 (latest now 1.21) (upstream release)`,
    );
    expect(r.stdout).toContain(
      `verify crun-1.21-linux-amd64: sha256 from the release API's asset digest (${server.url}/api/repos/containers/crun/releases/tags/1.21)`,
    );
    expect(r.stdout).toContain(
      'verify runc.amd64: sha256 from the published checksum file https://github.com/opencontainers/runc/releases/download/v1.3.6/runc.sha256sum',
    );
    expect(r.stdout).not.toContain('sha256 verified');
    expect(server.requests.filter((p) => p.startsWith('/github.com/'))).toEqual([]);
    expect(await exists(prefix)).toBe(false);
  });

  test('a pin is trusted before the API, which is then not asked', async () => {
    const crun = await serve(CRUN_ASSET, crunScript);
    const pins = join(work, 'pins.json');
    await writeFile(pins, JSON.stringify({ 'crun@1.21/crun-1.21-linux-amd64': `sha256:${sha256(crun)}` }));
    const r = await install(['crun@1.21'], ['--checksums', pins, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).components[0].verification[0]).toMatchObject({
      by: 'pinned',
      digest: sha256(crun),
    });
    expect(server.requests.filter((p) => p.startsWith('/api/'))).toEqual([]);
  });
});
