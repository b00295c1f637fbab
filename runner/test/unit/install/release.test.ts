// The release source for real: archives built here, served by a local HTTP server, downloaded,
// verified and unpacked into a temporary prefix; bad digests must leave nothing installed.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import {
  install,
  parseSpecList,
  realInstallEnv,
  uninstall,
  readInstallRecord,
} from '../../../src/install/index.ts';
import { startReleaseServer, type ReleaseServer } from './release-server.ts';

const run = promisify(execFile);
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const script = (line: string) => `#!/bin/sh\necho "${line}"\n`;

let work: string;
let server: ReleaseServer;
let prefix: string;
const logs: string[] = [];

/** Writes a served file under <root>/<host>/<path> and returns its bytes. */
async function serve(url: string, body: string | Buffer): Promise<Buffer> {
  const u = new URL(url);
  const file = join(work, 'www', u.host, u.pathname);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, body);
  return Buffer.from(body);
}

async function tarGz(files: Record<string, string>): Promise<Buffer> {
  const dir = await mkdtemp(join(work, 'tar-'));
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), body);
    await chmod(join(dir, name), 0o755);
  }
  await run('tar', ['-czf', `${dir}.tgz`, '-C', dir, ...Object.keys(files)]);
  return readFile(`${dir}.tgz`);
}

const GH = 'https://github.com';
const ctdUrl = `${GH}/containerd/containerd/releases/download/v1.7.24/containerd-1.7.24-linux-amd64.tar.gz`;
const runcBase = `${GH}/opencontainers/runc/releases/download/v1.2.3`;

async function publishContainerd(version = '1.7.24') {
  const archive = await tarGz({
    'bin/containerd': script(`containerd github.com/containerd/containerd v${version} 88bf19b`),
    'bin/containerd-shim-runc-v2': script('shim'),
    'bin/ctr': script(`ctr github.com/containerd/containerd v${version}`),
  });
  await serve(ctdUrl, archive);
  await serve(`${ctdUrl}.sha256sum`, `${sha256(archive)}  containerd-1.7.24-linux-amd64.tar.gz\n`);
}

async function publishRunc(opts: { badDigest?: boolean; reports?: string } = {}) {
  const bin = await serve(`${runcBase}/runc.amd64`, script(`runc version ${opts.reports ?? '1.2.3'}`));
  const digest = opts.badDigest ? sha256('something else') : sha256(bin);
  await serve(`${runcBase}/runc.sha256sum`, `${sha256('arm')}  runc.arm64\n${digest}  runc.amd64\n`);
}

const env = () => realInstallEnv((l) => logs.push(l));
const request = (specs: string) => ({
  specs: parseSpecList(specs),
  source: 'release' as const,
  prefix,
  suites: [],
});
const options = () => ({ statePath: join(prefix, 'state', 'install.json'), mirror: server.url });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rb-release-'));
  server = await startReleaseServer(join(work, 'www'));
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});
beforeEach(async () => {
  prefix = join(await mkdtemp(join(work, 'p-')), 'opt');
  logs.length = 0;
  await rm(join(work, 'www'), { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
  server.authorization.length = 0;
});

// Every test runs tar, sh and a local HTTP server: well under a second, unless the host is loaded.
describe('release source', { timeout: 60_000 }, () => {
  test('installs verified archives side by side, links bin/, writes the record and stack config', async () => {
    await publishContainerd();
    await publishRunc();
    const record = await install(env(), request('containerd@1.7.24 runc@1.2.3'), options());

    expect(server.requests).toContain(
      '/github.com/opencontainers/runc/releases/download/v1.2.3/runc.sha256sum',
    );
    const ctd = join(prefix, 'containerd', '1.7.24', 'bin', 'containerd');
    expect((await run(ctd, ['--version'])).stdout).toContain('v1.7.24');
    expect((await run(join(prefix, 'runc', '1.2.3', 'bin', 'runc'), ['--version'])).stdout).toBe(
      'runc version 1.2.3\n',
    );
    expect(await readdir(join(prefix, 'containerd', '1.7.24', 'bin'))).toEqual([
      'containerd',
      'containerd-shim-runc-v2',
      'ctr',
    ]);
    // No downloads or staging left behind.
    expect((await readdir(prefix)).sort()).toEqual(['containerd', 'runc', 'state']);
    expect(await readdir(join(prefix, 'runc', '1.2.3'))).toEqual(
      expect.not.arrayContaining(['.downloads', 'downloads']),
    );

    expect(record.handlers).toEqual([
      { name: 'runc-1.2.3', binary: join(prefix, 'runc', '1.2.3', 'bin', 'runc'), kind: 'runc' },
    ]);
    expect(record.containerd).toEqual([{ version: '1.7.24', binary: ctd }]);
    expect(record.components.map((c) => [c.name, c.version, c.reported, c.createdByThisInstall])).toEqual([
      ['containerd', '1.7.24', '1.7.24', true],
      ['runc', '1.2.3', '1.2.3', true],
    ]);
    expect(await readFile(record.stackConfig, 'utf8')).toContain('name: runc-1.2.3');
    expect(await readInstallRecord(join(prefix, 'state', 'install.json'))).toEqual(record);

    // A second install of the same versions reuses them and does not claim them.
    const again = await install(env(), request('runc@1.2.3'), {
      ...options(),
      statePath: join(work, 'again.json'),
    });
    expect(again.components[0]!.createdByThisInstall).toBe(false);
    expect(again.created).not.toContain(join(prefix, 'runc', '1.2.3'));
  });

  test('a bad digest refuses with a clear error and installs nothing, not even the good component', async () => {
    await publishContainerd();
    await publishRunc({ badDigest: true });
    const error = await install(env(), request('containerd@1.7.24 runc@1.2.3'), options()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RbError);
    expect((error as RbError).code).toBe('INSTALL_CHECKSUM_MISMATCH');
    expect((error as RbError).message).toMatch(
      /runc\.amd64: sha256 is [0-9a-f]{64}, but .*runc\.sha256sum says [0-9a-f]{64}; nothing was installed/,
    );
    expect(await exists(prefix)).toBe(false);
    expect(await exists(join(prefix, 'state', 'install.json'))).toBe(false);
  });

  test('crun (no checksum file): verified by the release API digest; a null digest refused; a pin wins', async () => {
    const url = `${GH}/containers/crun/releases/download/1.21/crun-1.21-linux-amd64`;
    const api = 'https://api.github.com/repos/containers/crun/releases/tags/1.21';
    const bin = await serve(url, script('crun version 1.21'));
    const release = (digest: string | null) =>
      JSON.stringify({ tag_name: '1.21', assets: [{ name: 'crun-1.21-linux-amd64', digest }] });

    // An asset uploaded before GitHub computed digests: refused before it is even downloaded.
    await serve(api, release(null));
    const error = await install(env(), request('crun@1.21'), options()).catch((e: unknown) => e);
    expect((error as RbError).code).toBe('INSTALL_CHECKSUM_MISSING');
    expect((error as RbError).message).toContain('assets[0].digest of crun-1.21-linux-amd64 is null');
    expect((error as RbError).hint).toContain('"crun@1.21/crun-1.21-linux-amd64"');
    expect((error as RbError).hint).toContain('--source distro');
    expect(server.requests).not.toContain(`/github.com${new URL(url).pathname}`);
    expect(await exists(prefix)).toBe(false);

    const wrongPin = { 'crun@1.21/crun-1.21-linux-amd64': `sha256:${sha256('x')}` };
    await expect(install(env(), request('crun@1.21'), { ...options(), checksums: wrongPin })).rejects.toThrow(
      /the pinned table says/,
    );

    server.requests.length = 0;
    const pins = { 'crun@1.21/crun-1.21-linux-amd64': `sha256:${sha256(bin)}` };
    const pinned = await install(env(), request('crun@1.21'), { ...options(), checksums: pins });
    expect(pinned.handlers.map((h) => h.name)).toEqual(['crun-1.21']);
    expect(pinned.components[0]!.verification).toEqual([
      expect.objectContaining({ by: 'pinned', from: 'the pinned table', digest: sha256(bin) }),
    ]);
    // The pin is trusted first: the API is not asked.
    expect(server.requests.some((p) => p.startsWith('/api.github.com/'))).toBe(false);
    await uninstall(env(), join(prefix, 'state', 'install.json'));

    await serve(api, release(`sha256:${sha256(bin)}`));
    const record = await install(env(), request('crun@1.21'), options());
    expect(record.components[0]!.verification).toEqual([
      {
        file: 'crun-1.21-linux-amd64',
        algorithm: 'sha256',
        by: 'release-api digest',
        // Read through the mirror, which is where it came from.
        from: `${server.url}/api.github.com/repos/containers/crun/releases/tags/1.21`,
        digest: sha256(bin),
      },
    ]);
    expect(record.components[0]!.detail).toContain('(verified: release-api digest)');
  });

  test('an installed entry whose binary was truncated is refused on the next use and downloaded again', async () => {
    await publishRunc();
    await install(env(), request('runc@1.2.3'), options());
    const dir = join(prefix, 'runc', '1.2.3');
    const binary = join(dir, 'bin', 'runc');
    const intact = await readFile(binary);
    // What a disk or a hand left: the file the entry names, cut short.
    await writeFile(binary, intact.subarray(0, 5));
    logs.length = 0;
    server.requests.length = 0;
    const again = await install(env(), request('runc@1.2.3'), {
      ...options(),
      statePath: join(work, 'again.json'),
    });
    expect(logs).toContainEqual(
      expect.stringMatching(new RegExp(`^${dir}: refused: .*runc does not match its recorded sha256`)),
    );
    expect(server.requests).toContain('/github.com/opencontainers/runc/releases/download/v1.2.3/runc.amd64');
    expect(await readFile(binary)).toEqual(intact);
    expect((await run(binary, ['--version'])).stdout).toBe('runc version 1.2.3\n');
    expect(again.components[0]).toMatchObject({ reported: '1.2.3', createdByThisInstall: true });
    expect((await readdir(prefix)).sort()).toEqual(['runc', 'state']);
  });

  test('a staging directory a killed install left (half a download) is never used, and the next install removes it', async () => {
    await publishRunc();
    const killed = join(prefix, '.staging-999999999-0badf00d');
    await mkdir(join(killed, 'runc-1.2.3', '.downloads'), { recursive: true });
    await writeFile(join(killed, 'runc-1.2.3', '.downloads', 'runc.amd64'), '#!/bin/sh\necho ru');
    await install(env(), request('runc@1.2.3'), options());
    expect(logs).toContainEqual(
      `${killed}: left by pid 999999999, which is gone (killed mid-install?): removed, never used`,
    );
    expect(server.requests).toContain('/github.com/opencontainers/runc/releases/download/v1.2.3/runc.amd64');
    expect((await run(join(prefix, 'runc', '1.2.3', 'bin', 'runc'), ['--version'])).stdout).toBe(
      'runc version 1.2.3\n',
    );
    expect((await readdir(prefix)).sort()).toEqual(['runc', 'state']);
  });

  test('a binary that reports another version than asked is not installed', async () => {
    await publishRunc({ reports: '1.1.0' });
    await expect(install(env(), request('runc@1.2.3'), options())).rejects.toThrow(
      /reports version 1\.1\.0, expected 1\.2\.3/,
    );
    // Placed, then found wrong: removed with the directories made for it, prefix included.
    expect(await exists(prefix)).toBe(false);
  });

  test('latest is resolved through the releases API', async () => {
    await publishRunc();
    await serve(
      'https://api.github.com/repos/opencontainers/runc/releases/latest',
      JSON.stringify({ tag_name: 'v1.2.3' }),
    );
    const record = await install(env(), request('runc@latest'), options());
    expect(record.components[0]!.version).toBe('1.2.3');
  });

  test.each([
    [
      'a page instead of JSON',
      '<html>proxy says no</html>',
      /no tag_name in the answer \(<html>proxy says no<\/html>\)/,
    ],
    ['JSON null', 'null', /no tag_name in the answer \(null\)/],
  ])(
    'latest answered with %s: an install error naming the URL, not an internal one',
    async (_what, body, message) => {
      await serve('https://api.github.com/repos/opencontainers/runc/releases/latest', body);
      await expect(install(env(), request('runc@latest'), options())).rejects.toMatchObject({
        code: 'INSTALL_VERSION',
        message: expect.stringMatching(message),
      });
    },
  );

  test('a missing asset is a download error naming the URL', async () => {
    await expect(install(env(), request('runc@9.9.9'), options())).rejects.toThrow(/runc\.amd64: HTTP 404/);
    expect(await exists(prefix)).toBe(false);
  });

  test('uninstall removes what the install created and nothing else', async () => {
    await mkdir(prefix, { recursive: true });
    await writeFile(join(prefix, 'someone-elses-file'), 'keep me');
    await mkdir(join(prefix, 'runc', '1.0.0'), { recursive: true }); // a version installed earlier by others
    await publishContainerd();
    await publishRunc();
    const statePath = join(prefix, 'state', 'install.json');
    const record = await install(env(), request('containerd@1.7.24 runc@1.2.3'), options());
    expect(record.created).not.toContain(prefix);
    const report = await uninstall(env(), statePath);
    expect(report.errors).toEqual([]);
    expect(report.removed).toEqual(
      expect.arrayContaining([
        join(prefix, 'runc', '1.2.3'),
        join(prefix, 'containerd'),
        join(prefix, 'state'),
      ]),
    );
    expect((await readdir(prefix)).sort()).toEqual(['runc', 'someone-elses-file']);
    expect(await readdir(join(prefix, 'runc'))).toEqual(['1.0.0']);
    expect(report.kept).toEqual([]);
  });
});

describe('release source: CRI-O bundle and crictl', { timeout: 60_000 }, () => {
  const crioUrl = 'https://storage.googleapis.com/cri-o/artifacts/cri-o.amd64.v1.36.3.tar.gz';
  const crictlUrl = `${GH}/kubernetes-sigs/cri-tools/releases/download/v1.36.0/crictl-v1.36.0-linux-amd64.tar.gz`;

  /** The upstream layouts: CRI-O's bundle under cri-o/ with a sha256sum line, crictl bare with a bare digest. */
  async function publishCrio(opts: { badCrictlDigest?: boolean } = {}) {
    const bundle = await tarGz({
      'cri-o/bin/crio': script(
        'crio version 1.36.3\n   GitCommit:      v1.36.3\n   GoVersion:      go1.24.6',
      ),
      'cri-o/bin/pinns': script('pinns'),
      'cri-o/bin/conmon': script('conmon version 2.1.13'),
      'cri-o/bin/crun': script('crun version 1.24'),
      'cri-o/bin/runc': script('runc version 1.3.2'),
      'cri-o/bin/crictl': script('crictl version v1.36.0'),
      'cri-o/etc/crio.conf': '# upstream defaults',
    });
    await serve(crioUrl, bundle);
    await serve(`${crioUrl}.sha256sum`, `${sha256(bundle)}  cri-o.amd64.v1.36.3.tar.gz\n`);
    const crictl = await tarGz({ crictl: script('crictl version v1.36.0') });
    await serve(crictlUrl, crictl);
    await serve(`${crictlUrl}.sha256`, `${opts.badCrictlDigest ? sha256('other') : sha256(crictl)}\n`);
  }

  test('crio, pinns and conmon land in cri-o/<version>/bin, verified; the record names them for stack up', async () => {
    await publishCrio();
    const record = await install(env(), request('cri-o@1.36.3 crictl@1.36.0'), options());
    expect(server.requests).toEqual(
      expect.arrayContaining([
        '/storage.googleapis.com/cri-o/artifacts/cri-o.amd64.v1.36.3.tar.gz.sha256sum',
        '/github.com/kubernetes-sigs/cri-tools/releases/download/v1.36.0/crictl-v1.36.0-linux-amd64.tar.gz.sha256',
      ]),
    );
    const bin = join(prefix, 'cri-o', '1.36.3', 'bin');
    // The bundle's runc, crun and crictl stay unlinked: OCI runtimes and crictl are components of
    // their own, installed (and named as handlers) at versions the user chooses.
    expect((await readdir(bin)).sort()).toEqual(['conmon', 'crio', 'pinns']);
    expect((await run(join(bin, 'crio'), ['--version'])).stdout).toMatch(/^crio version 1\.36\.3\n/);
    expect((await run(join(bin, 'pinns'), [])).stdout).toBe('pinns\n');
    const crictl = join(prefix, 'crictl', '1.36.0', 'bin', 'crictl');
    expect((await run(crictl, ['--version'])).stdout).toBe('crictl version v1.36.0\n');
    expect(record.crio).toEqual([
      {
        version: '1.36.3',
        binary: join(bin, 'crio'),
        pinns: join(bin, 'pinns'),
        conmon: join(bin, 'conmon'),
      },
    ]);
    expect(record.crictl).toBe(crictl);
    expect(record.handlers).toEqual([]);
    expect(record.components.map((c) => [c.name, c.role, c.version, c.reported])).toEqual([
      ['cri-o', 'cri', '1.36.3', '1.36.3'],
      ['crictl', 'tool', '1.36.0', '1.36.0'],
    ]);
    expect((await readdir(prefix)).sort()).toEqual(['cri-o', 'crictl', 'state']);

    // Uninstall removes exactly what the install added.
    const report = await uninstall(env(), join(prefix, 'state', 'install.json'));
    expect(report.errors).toEqual([]);
    expect(await exists(prefix)).toBe(false);
  });

  test('a bad crictl checksum installs nothing, not even the verified CRI-O bundle', async () => {
    await publishCrio({ badCrictlDigest: true });
    await expect(install(env(), request('cri-o@1.36.3 crictl@1.36.0'), options())).rejects.toMatchObject({
      code: 'INSTALL_CHECKSUM_MISMATCH',
      message: expect.stringMatching(
        /^crictl-v1\.36\.0-linux-amd64\.tar\.gz: sha256 is [0-9a-f]{64}, but .*\.sha256 says/,
      ),
    });
    expect(await exists(prefix)).toBe(false);
  });
});

describe('install CLI', () => {
  const cli = [
    '--experimental-strip-types',
    join(import.meta.dirname, '../../../bin/runtime-bench.js'),
  ].slice(1);
  // Each test starts the CLI in a new Node process: seconds on a loaded machine, hence a budget.
  test('--dry-run prints the plan and changes nothing', { timeout: 60_000 }, async () => {
    const { stdout } = await run(process.execPath, [
      ...cli,
      'install',
      '--dry-run',
      '--prefix',
      prefix,
      'containerd@1.7.24',
      'runc@1.2.3',
    ]);
    expect(stdout).toMatch(
      new RegExp(
        `containerd@1\\.7\\.24 +→ ${prefix}/containerd/1\\.7\\.24 \\(upstream release\\)\n +verify containerd-1\\.7\\.24-linux-amd64\\.tar\\.gz: sha256 from the published checksum file ${ctdUrl}\\.sha256sum\n`,
      ),
    );
    expect(stdout).not.toContain('sha256 verified');
    expect(stdout).toContain('handler runc-1.2.3');
    expect(await exists(prefix)).toBe(false);
  });

  test(
    'a bad checksum exits non-zero with the message and hint, leaving nothing',
    { timeout: 60_000 },
    async () => {
      await publishRunc({ badDigest: true });
      const result = await run(process.execPath, [
        ...cli,
        'install',
        '--prefix',
        prefix,
        '--mirror',
        server.url,
        'runc@1.2.3',
      ]).catch((e: { code: number; stderr: string }) => e);
      expect((result as { code: number }).code).toBe(1);
      expect((result as { stderr: string }).stderr).toMatch(
        /runtime-bench: runc\.amd64: sha256 is .* nothing was installed\nhint: /,
      );
      expect(await exists(join(prefix, 'runc'))).toBe(false);
    },
  );
});
