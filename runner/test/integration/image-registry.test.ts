// The stack's own registry and image.* against real runtimes: a containerd stack (Debian's) and,
// when the shared build is there, a CRI-O stack, each with docker-registry on loopback; real
// pushes, real pulls timed end to end, the store proved cold from its files (checked here
// independently of the code under test), and nothing listening once the stacks are down.
// Small images (a few MiB): CI has 2 cores.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunResultSchema, type BenchmarkResult, type RunResult } from '@runtime-bench/schemas';
import { GrpcCriClient } from '../../src/cri/grpc-client.ts';
import { runCli } from '../support/cli.ts';
import { mountsUnder, onPath, processesUnder, realStackUnavailable, testStackName } from '../support/host.ts';
import { sharedTool } from '../support/shared-tools.ts';

const CTD = testStackName('img-ctd');
const CRIO = testStackName('img-crio');
const stateDir = (name: string): string => `/var/lib/runtime-bench/stacks/${name}`;
const crio = sharedTool('cri-o/crio');
const unavailable =
  realStackUnavailable() ??
  (onPath('docker-registry') ? null : 'docker-registry is not on PATH (bash scripts/setup.sh installs it)') ??
  (onPath('skopeo') ? null : 'skopeo is not on PATH (bash scripts/setup.sh installs it)');
if (unavailable) console.warn(`SKIPPED image registry integration tests: ${unavailable}`);
if (!unavailable && !crio)
  console.warn('SKIPPED the CRI-O half: no shared CRI-O build (set RB_SHARED_TOOLS)');
const STACKS: { name: string; cri: 'containerd' | 'cri-o'; socket: string }[] = [
  { name: CTD, cri: 'containerd', socket: 'containerd.sock' },
  ...(crio ? [{ name: CRIO, cri: 'cri-o' as const, socket: 'crio.sock' }] : []),
];

interface StackJson {
  pid: number;
  registry?: { pid: number | null; address: string };
}
const stackJson = (name: string): StackJson =>
  JSON.parse(readFileSync(join(stateDir(name), 'stack.json'), 'utf8')) as StackJson;

/** Listening TCP sockets from /proc/net/tcp{,6}: "address:port" by socket inode (read here, not by the code). */
function listeningSockets(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== '0A') continue; // TCP_LISTEN
      const [hexAddr, hexPort] = f[1]!.split(':') as [string, string];
      const addr =
        hexAddr.length === 8
          ? hexAddr
              .match(/../g)!
              .reverse()
              .map((b) => Number.parseInt(b, 16))
              .join('.')
          : `[${hexAddr}]`;
      out.set(f[9]!, `${addr}:${Number.parseInt(hexPort, 16)}`);
    }
  }
  return out;
}

/** What the process `pid` listens on. */
function listeningOf(pid: number): string[] {
  const sockets = listeningSockets();
  const found: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode && sockets.has(inode)) found.push(sockets.get(inode)!);
  }
  return found;
}

/** Is `pid` a live process (a zombie awaiting its parent's wait() holds no socket and runs nothing)? */
function runningProcess(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return !/ Z /.test(stat.slice(stat.lastIndexOf(')')));
}

const work = mkdtempSync(join(tmpdir(), 'rb-images-'));

async function run(name: string, body: string): Promise<RunResult> {
  const config = join(work, `${name}.yaml`);
  const out = join(work, `${name}.json`);
  writeFileSync(config, body);
  const r = await runCli(['run', '--config', config, '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  return RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
}

const resultOf = (r: RunResult, benchmark: string, target: string): BenchmarkResult => {
  const found = r.results.find((x) => x.benchmark === benchmark && x.target === target);
  if (!found) throw new Error(`no result for ${benchmark} on ${target}`);
  return found;
};
const samples = (r: BenchmarkResult, metric: string): number[] => {
  const m = r.metrics.find((x) => x.name === metric);
  if (!m) throw new Error(`${r.benchmark}: no metric ${metric}`);
  return m.samples;
};

/** The image's manifest as the registry serves it, fetched here (independently of registry-api.ts). */
async function manifestOf(
  address: string,
  repository: string,
  tag: string,
): Promise<{ layers: { digest: string; size: number; mediaType: string }[] }> {
  const r = await fetch(`http://${address}/v2/${repository}/manifests/${tag}`, {
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  expect(r.status).toBe(200);
  return (await r.json()) as { layers: { digest: string; size: number; mediaType: string }[] };
}

/** Tags of a repository in the registry. */
async function tagsOf(address: string, repository: string): Promise<string[]> {
  const r = await fetch(`http://${address}/v2/${repository}/tags/list`);
  return r.status === 200 ? ((await r.json()) as { tags: string[] }).tags : [];
}

describe.skipIf(unavailable !== null)("a stack's registry and image.*", () => {
  let result: RunResult;
  const addresses = new Map<string, string>();

  beforeAll(async () => {
    for (const s of STACKS) {
      const up = await runCli([
        'stack',
        'up',
        '--stack',
        s.name,
        '--fix-host',
        ...(s.cri === 'cri-o' ? ['--cri', 'cri-o', '--crio', crio!] : []),
      ]);
      expect(up.code, up.stderr).toBe(0);
      addresses.set(s.name, stackJson(s.name).registry!.address);
    }
    result = await run(
      'images',
      `
name: images-itest
targets:
${STACKS.map((s) => `  - { name: ${s.cri}, cri: ${s.cri}, stack: ${s.name}, handlers: [runc] }`).join('\n')}
benchmarks: [image]
runs: 2
warmup: 0
parameters:
  image: { size: medium, sizeMiB: 6, layers: 3, concurrency: 2 }
`,
    );
  }, 1_500_000);

  afterAll(async () => {
    for (const s of STACKS) {
      const before = stackJson(s.name).registry;
      const down = await runCli(['stack', 'down', '--stack', s.name]);
      expect(down.code, down.stderr).toBe(0);
      expect(processesUnder(stateDir(s.name))).toEqual([]);
      expect(mountsUnder(stateDir(s.name))).toEqual([]);
      // Nothing listens on the registry's port any more, and its pid is gone and recorded as such.
      expect(
        [...listeningSockets().values()].filter((a) => a.endsWith(`:${before!.address.split(':')[1]}`)),
      ).toEqual([]);
      expect(runningProcess(before!.pid!)).toBe(false);
      expect(stackJson(s.name).registry!.pid).toBeNull();
    }
  }, 300_000);

  test('each stack runs its own registry, listening on loopback only, named in its private config', () => {
    for (const s of STACKS) {
      const { registry } = stackJson(s.name);
      expect(registry!.address).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(listeningOf(registry!.pid!)).toEqual([registry!.address]);
      expect(readFileSync(`/proc/${registry!.pid}/cmdline`, 'utf8')).toContain(
        `${stateDir(s.name)}/registry/`,
      );
      if (s.cri === 'containerd') {
        expect(readFileSync(join(stateDir(s.name), 'config.toml'), 'utf8')).toContain(
          `config_path = "${stateDir(s.name)}/registry/certs.d"`,
        );
        expect(
          readFileSync(
            join(stateDir(s.name), 'registry', 'certs.d', registry!.address, 'hosts.toml'),
            'utf8',
          ),
        ).toContain(`server = "http://${registry!.address}"`);
      } else {
        const env = readFileSync(`/proc/${stackJson(s.name).pid}/environ`, 'utf8').split('\0');
        // CRI-O reads its HOME's per-user registries.conf, never /etc/containers/registries.conf.
        expect(env).toContain(`HOME=${stateDir(s.name)}/registry/home`);
        expect(
          readFileSync(join(stateDir(s.name), 'registry/home/.config/containers/registries.conf'), 'utf8'),
        ).toContain(`location = "${registry!.address}"`);
      }
    }
    if (STACKS.length > 1) expect(addresses.get(CTD)).not.toBe(addresses.get(CRIO));
  });

  test('every image.* benchmark has its samples on every stack, with both compressions', () => {
    for (const r of result.results)
      expect(`${r.benchmark} ${r.target} ${r.status} ${r.reason ?? ''}`).toMatch(/ ok $/);
    for (const s of STACKS)
      for (const b of ['image.pull', 'image.concurrent-pulls', 'image.pod-start'])
        for (const m of resultOf(result, b, `${s.cri}/runc`).metrics)
          expect(m.samples, `${b} ${m.name}`).toHaveLength(2);
  });

  test('pulls are real: the registry holds the pushed images; rates match its manifests; cold > warm', async () => {
    for (const s of STACKS) {
      const address = addresses.get(s.name)!;
      const pull = resultOf(result, 'image.pull', `${s.cri}/runc`);
      for (const c of ['gzip', 'zstd'] as const) {
        const repository = `runtime-bench/image-medium-${c}-v0`;
        const tags = await tagsOf(address, repository);
        expect(tags).toHaveLength(1);
        const manifest = await manifestOf(address, repository, tags[0]!);
        expect(manifest.layers).toHaveLength(3);
        for (const l of manifest.layers)
          expect(l.mediaType).toBe(`application/vnd.oci.image.layer.v1.tar+${c}`);
        const mib = manifest.layers.reduce((a, l) => a + l.size, 0) / 2 ** 20;
        const cold = samples(pull, `${c}_cold_pull`);
        const rate = samples(pull, `${c}_cold_mib_per_s`);
        cold.forEach((t, i) => expect(rate[i]! * t).toBeCloseTo(mib, 6));
        const warm = samples(pull, `${c}_warm_pull`);
        cold.forEach((t, i) => expect(t * 1000).toBeGreaterThan(warm[i]!));
        // concurrent-pulls pushed `concurrency` distinct variants
        expect(await tagsOf(address, `runtime-bench/image-medium-${c}-v1`)).toHaveLength(1);
      }
    }
  });

  test('a pull fills the store and a removal empties it (checked from the store files here)', async () => {
    const s = STACKS[0]!;
    const address = addresses.get(s.name)!;
    const repository = 'runtime-bench/image-medium-gzip-v0';
    const tag = (await tagsOf(address, repository))[0]!;
    const manifest = await manifestOf(address, repository, tag);
    const blobs = (): string[] => {
      const dir = join(stateDir(s.name), 'root', 'io.containerd.content.v1.content', 'blobs', 'sha256');
      const present = new Set(readdirSync(dir));
      return manifest.layers.map((l) => l.digest.slice('sha256:'.length)).filter((h) => present.has(h));
    };
    // The run left the store cold (each repetition removes what it pulled).
    expect(blobs()).toEqual([]);
    const client = new GrpcCriClient(join(stateDir(s.name), s.socket), 120);
    try {
      await client.pullImage(`${address}/${repository}:${tag}`);
      expect(blobs()).toHaveLength(3);
      await client.removeImage(`${address}/${repository}:${tag}`);
      const deadline = Date.now() + 30_000;
      while (blobs().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(blobs()).toEqual([]);
    } finally {
      client.close();
    }
  }, 300_000);
});
