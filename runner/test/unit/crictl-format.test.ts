import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  crictlConfigYaml,
  execExitCode,
  parseCrictlId,
  parseCrictlVersion,
  parseInspect,
  parseImages,
  parseInspecti,
  parseInspectp,
  parsePods,
  parsePulled,
  parseStats,
  toCrictlJson,
  toEpochNanos,
  updateArgs,
} from '../../src/cri/crictl-format.ts';

const fx = (name: string): string =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'crictl', `crictl-1.36-${name}`), 'utf8');

describe('crictl output parsing (captured from a real crictl)', () => {
  test('version lines', () => {
    expect(parseCrictlVersion(fx('version.txt'))).toEqual({
      version: '0.1.0',
      runtimeName: 'containerd',
      runtimeVersion: '1.6.20~ds1',
      runtimeApiVersion: 'v1',
    });
  });

  test('ids printed by runp and create', () => {
    expect(parseCrictlId(fx('runp.txt'), 'runp')).toMatch(/^[0-9a-f]{64}$/);
    expect(() => parseCrictlId('time="…" level=fatal msg="boom"', 'runp')).toThrow(/printed no id/);
  });

  test('inspectp: state, ip, handler, labels', () => {
    const s = parseInspectp(fx('inspectp.json'));
    expect(s.state).toBe('SANDBOX_READY');
    expect(s.ip).toMatch(/^10\.233\.\d+\.\d+$/);
    expect(s.runtimeHandler).toBe('runc');
    expect(s.labels['runtime-bench.run-id']).toBe('fixture');
    expect(BigInt(s.createdAt)).toBeGreaterThan(0n);
  });

  test('pods filtered by label', () => {
    const pods = parsePods(fx('pods.json'));
    expect(pods).toHaveLength(1);
    expect(pods[0]).toMatchObject({ name: 'fx', state: 'SANDBOX_READY', runtimeHandler: 'runc' });
  });

  test('inspect: a running container', () => {
    const c = parseInspect(fx('inspect.json'));
    expect(c.state).toBe('CONTAINER_RUNNING');
    expect(c.logPath).toBe('/tmp/cc/logs/s.log');
    expect(BigInt(c.startedAt)).toBeGreaterThan(BigInt(c.createdAt));
  });

  test('stats: cumulative CPU time and working set', () => {
    const s = parseStats(fx('stats.json'));
    expect(Number(s.cpuUsageCoreNanoSeconds)).toBeGreaterThan(0);
    expect(Number(s.memoryWorkingSetBytes)).toBeGreaterThan(0);
  });

  test('inspecti and the exit code of a failed exec', () => {
    expect(parseInspecti(fx('inspecti.json'))?.repoTags).toEqual(['localhost/runtime-bench/bench:latest']);
    expect(execExitCode(fx('exec-fail.err'))).toBe(3);
    expect(fx('inspecti-missing.err')).toMatch(/no such image/);
  });
});

describe('crictl input building', () => {
  test('configs become snake_case, label names stay as written', () => {
    const out = toCrictlJson({
      metadata: { name: 'p', uid: 'u', namespace: 'n' },
      logDirectory: '/l',
      labels: { 'runtime-bench.run-id': 'x', camelKey: 'y' },
      linux: { securityContext: { namespaceOptions: { pid: 1 } } },
      hostname: undefined,
    });
    expect(out).toEqual({
      metadata: { name: 'p', uid: 'u', namespace: 'n' },
      log_directory: '/l',
      labels: { 'runtime-bench.run-id': 'x', camelKey: 'y' },
      linux: { security_context: { namespace_options: { pid: 1 } } },
    });
  });

  test('the private config sets both endpoints', () => {
    const yaml = crictlConfigYaml('/s/c.sock', 30);
    expect(yaml).toContain('runtime-endpoint: unix:///s/c.sock');
    expect(yaml).toContain('image-endpoint: unix:///s/c.sock');
  });

  test('update flags', () => {
    expect(updateArgs('abc', { cpuQuota: 10000, cpuPeriod: 100000, memoryLimitInBytes: 1 << 20 })).toEqual([
      'update',
      '--cpu-period',
      '100000',
      '--cpu-quota',
      '10000',
      '--memory',
      '1048576',
      'abc',
    ]);
  });
});

describe('timestamps', () => {
  test.each([
    ['2026-11-21T08:47:39.316197484Z', '1795250859316197484'],
    ['2026-11-21T08:47:39Z', '1795250859000000000'],
    ['2026-11-21T08:47:39.5Z', '1795250859500000000'],
    ['1795250859316197484', '1795250859316197484'],
    ['1970-01-01T00:00:00Z', '0'],
    ['', '0'],
  ])('%s → %s ns', (text, nanos) => {
    expect(toEpochNanos(text)).toBe(nanos);
  });
});

describe('crictl image calls', () => {
  // crictl prints these shapes: `images -o json` is the CRI ListImagesResponse in protojson,
  // `pull` ends with "Image is up to date for <image ref>".
  test('images -o json and pull', () => {
    expect(
      parseImages(
        JSON.stringify({
          images: [
            {
              id: 'sha256:aa',
              repoTags: ['127.0.0.1:5000/r:t'],
              repoDigests: [],
              size: '1024',
              pinned: false,
            },
            { id: 'sha256:bb', repoTags: null, size: '5' },
          ],
        }),
      ),
    ).toEqual([
      { id: 'sha256:aa', repoTags: ['127.0.0.1:5000/r:t'], size: '1024' },
      { id: 'sha256:bb', repoTags: [], size: '5' },
    ]);
    expect(parseImages('{"images": []}')).toEqual([]);
    expect(parsePulled('Image is up to date for sha256:0123abcd\n')).toBe('sha256:0123abcd');
    expect(() => parsePulled('something else')).toThrow(/unexpected output/);
  });
});
