import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { writePlannedFile } from '../../../src/stack/images/shaped.ts';
import { layerSizes, MAX_FILE_BYTES, planImage, SIZE_CLASSES } from '../../../src/stack/images/shapes.ts';

const MiB = 2 ** 20;
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe('image shapes', () => {
  test('the size classes are the realistic shapes: few MB in one layer, 100–300 MB in 5–10, ~1 GB in 10+', () => {
    expect(SIZE_CLASSES.small.layers).toBe(1);
    expect(SIZE_CLASSES.small.sizeMiB).toBeLessThan(10);
    expect(SIZE_CLASSES.medium.sizeMiB).toBeGreaterThanOrEqual(100);
    expect(SIZE_CLASSES.medium.sizeMiB).toBeLessThanOrEqual(300);
    expect(SIZE_CLASSES.medium.layers).toBeGreaterThanOrEqual(5);
    expect(SIZE_CLASSES.medium.layers).toBeLessThanOrEqual(10);
    expect(SIZE_CLASSES.large.sizeMiB).toBeGreaterThanOrEqual(1000);
    expect(SIZE_CLASSES.large.layers).toBeGreaterThanOrEqual(10);
  });

  test('layer sizes: harmonic weights, biggest first, summing exactly', () => {
    // 1, 1/2, 1/3 of 1100 over 11/6: 600, 300, 200
    expect(layerSizes(1100, 3)).toEqual([600, 300, 200]);
    const sizes = layerSizes(200 * MiB + 7, 8);
    expect(sum(sizes)).toBe(200 * MiB + 7);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]!);
    expect(layerSizes(5, 1)).toEqual([5]);
    expect(() => layerSizes(2, 3)).toThrow(RangeError);
    expect(() => layerSizes(100, 0)).toThrow(RangeError);
  });

  test('a plan: files of at most MAX_FILE_BYTES, the compressible share first, totals exact', () => {
    const plan = planImage({ size: 'large', compression: 'zstd', compressibleShare: 0.25, variant: 0 });
    expect(plan.layers).toHaveLength(12);
    expect(plan.totalBytes).toBe(1024 * MiB);
    expect(sum(plan.layers.map((l) => l.bytes))).toBe(1024 * MiB);
    for (const layer of plan.layers) {
      expect(sum(layer.files.map((f) => f.bytes))).toBe(layer.bytes);
      for (const f of layer.files) expect(f.bytes).toBeLessThanOrEqual(MAX_FILE_BYTES);
      const compressible = sum(layer.files.filter((f) => f.content === 'compressible').map((f) => f.bytes));
      expect(compressible).toBe(Math.round(layer.bytes * 0.25));
    }
    const paths = plan.layers.flatMap((l) => l.files.map((f) => f.path));
    expect(new Set(paths).size).toBe(paths.length);
    expect(plan.repository).toBe('runtime-bench/image-large-zstd-v0');
  });

  test('overrides, and tags that change exactly when the bytes would', () => {
    const base = { size: 'medium' as const, sizeMiB: 6, layers: 3, compressibleShare: 0.5, variant: 0 };
    const a = planImage({ ...base, compression: 'gzip' });
    expect(a.layers).toHaveLength(3);
    expect(a.totalBytes).toBe(6 * MiB);
    expect(planImage({ ...base, compression: 'gzip' })).toEqual(a);
    // Same content under the other compression: same tag, another repository.
    const z = planImage({ ...base, compression: 'zstd' });
    expect(z.tag).toBe(a.tag);
    expect(z.repository).not.toBe(a.repository);
    const v1 = planImage({ ...base, compression: 'gzip', variant: 1 });
    expect(v1.tag).not.toBe(a.tag);
    expect(v1.layers[0]!.files[0]!.seed).not.toBe(a.layers[0]!.files[0]!.seed);
    expect(planImage({ ...base, compression: 'gzip', compressibleShare: 0.4 }).tag).not.toBe(a.tag);
    expect(() => planImage({ ...base, compression: 'gzip', compressibleShare: 2 })).toThrow(RangeError);
  });
});

/** The expected bytes, from openssl's AES-128-CTR (independent of node:crypto) and a Python fold. */
function expectedSha(seed: string, bytes: number, compressible: boolean): string {
  const key = createHash('sha256').update(seed).digest().subarray(0, 16).toString('hex');
  const stream = execFileSync(
    'sh',
    ['-c', `head -c ${bytes} /dev/zero | openssl enc -aes-128-ctr -K ${key} -iv ${'0'.repeat(32)} -nosalt`],
    { maxBuffer: 64 * MiB },
  );
  const data = compressible
    ? execFileSync(
        'python3',
        [
          '-c',
          'import sys; d=sys.stdin.buffer.read(); sys.stdout.buffer.write(bytes(0x61 + (b & 7) for b in d))',
        ],
        {
          input: stream,
          maxBuffer: 64 * MiB,
        },
      )
    : stream;
  return createHash('sha256').update(data).digest('hex');
}

describe.skipIf(!existsOnPath('openssl') || !existsOnPath('python3'))('seeded file content', () => {
  test('incompressible is the AES-CTR keystream of the seed; compressible its fold onto 8 letters', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-shape-'));
    try {
      for (const content of ['incompressible', 'compressible'] as const) {
        const file = { path: `d/${content}.bin`, bytes: 3 * MiB + 17, content, seed: `seed-${content}` };
        await writePlannedFile(dir, file);
        const got = createHash('sha256')
          .update(readFileSync(join(dir, file.path)))
          .digest('hex');
        expect(got).toBe(expectedSha(file.seed, file.bytes, content === 'compressible'));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function existsOnPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
