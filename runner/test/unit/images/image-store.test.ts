import { describe, expect, test } from 'vitest';
import { crioStoreMentions } from '../../../src/stack/image-store.ts';
import { parseManifest } from '../../../src/stack/images/registry-api.ts';
import { pullRates } from '../../../src/suites/image-kit.ts';

const d = (c: string): string => `sha256:${c.repeat(64)}`;

describe('what the registry serves', () => {
  test('layers, their bytes and the diff_ids of a manifest and its config', () => {
    const image = parseManifest(
      '127.0.0.1:5000/r:t',
      d('f'),
      {
        schemaVersion: 2,
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: d('c'), size: 400 },
        layers: [
          { mediaType: 'application/vnd.oci.image.layer.v1.tar+zstd', digest: d('1'), size: 1000 },
          { mediaType: 'application/vnd.oci.image.layer.v1.tar+zstd', digest: d('2'), size: 24 },
        ],
      },
      { rootfs: { type: 'layers', diff_ids: [d('a'), d('b')] } },
    );
    expect(image.layerBytes).toBe(1024);
    expect(image.layers.map((l) => l.digest)).toEqual([d('1'), d('2')]);
    expect(image.diffIds).toEqual([d('a'), d('b')]);
    expect(image.configDigest).toBe(d('c'));
    expect(() => parseManifest('r', d('f'), { config: {}, layers: [] }, {})).toThrow();
  });

  test('MiB and layers per second', () => {
    expect(
      pullRates(
        [
          {
            layerBytes: 3 * 2 ** 20,
            layers: [1, 2, 3].map((i) => ({ digest: d(String(i)), size: 1, mediaType: '' })),
          },
        ],
        2,
      ),
    ).toEqual({
      mibPerSecond: 1.5,
      layersPerSecond: 1.5,
    });
    expect(() => pullRates([], 0)).toThrow(RangeError);
  });
});

describe("CRI-O's store", () => {
  const image = { layerDigests: [d('1'), d('2')], diffIds: [d('a'), d('b')], configDigest: d('c') };

  test('a layer is found by its compressed or uncompressed digest, the image by its id', () => {
    const layers = JSON.stringify([
      { id: 'x', 'compressed-diff-digest': d('1'), 'diff-digest': d('a') },
      { id: 'y', 'diff-digest': d('b') },
      { id: 'z', 'compressed-diff-digest': d('9'), 'diff-digest': d('8') },
    ]);
    const images = JSON.stringify([{ id: 'c'.repeat(64) }]);
    expect(crioStoreMentions(layers, images, image)).toEqual([d('1'), d('a'), d('b'), d('c')].sort());
  });

  test('cold: other images only, or an empty store', () => {
    expect(
      crioStoreMentions(
        JSON.stringify([{ 'diff-digest': d('8') }]),
        JSON.stringify([{ id: 'e'.repeat(64) }]),
        image,
      ),
    ).toEqual([]);
    expect(crioStoreMentions('', '', image)).toEqual([]);
  });
});
