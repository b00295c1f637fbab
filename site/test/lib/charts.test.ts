// Chart specs: fixed colours per runtime family, units on the axis, points that know their run.
import { expect, test } from 'vitest';
import { benchmarkSpecs } from '../../src/lib/charts.ts';
import { buildIndex } from '../../src/lib/index-builder.ts';
import { benchmarkView } from '../../src/lib/views/benchmark.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const a = makeRun('20261101T000000Z-00000001', '2026-11-01T00:00:00Z', [
  { oci: 'crun', ociVersion: '1.8.7', samples: spread(40) },
  { oci: 'runc', ociVersion: '1.1.5', samples: spread(50) },
]);
const b = makeRun('20261102T000000Z-00000002', '2026-11-02T00:00:00Z', [
  { oci: 'runc', ociVersion: '1.1.12', samples: spread(60) },
]);
const index = buildIndex(loaded(a, b));
const metric = index.metrics.find((m) => m.metric === 'CreateContainer')!;
const specs = benchmarkSpecs(benchmarkView(index, metric), index.hostClasses[0]!.id);

test('runc is blue and crun orange on every chart, whatever the order of the series', () => {
  const colour = (oci: string, list: { oci: string; colour?: string }[]) =>
    list.find((d) => d.oci === oci)?.colour;
  for (const spec of [specs.time!, specs.strip!, ...specs.versions]) {
    if (spec.datasets.some((d) => d.oci === 'runc')) expect(colour('runc', spec.datasets)).toBe('#0072B2');
    if (spec.datasets.some((d) => d.oci === 'crun')) expect(colour('crun', spec.datasets)).toBe('#E69F00');
  }
});

test('axes name the unit for humans; strip points open their run; the box is the quartiles', () => {
  expect(specs.strip!.yLabel).toBe('sample (ms)');
  expect(specs.strip!.unit).toBe('ms');
  const runc = specs.strip!.datasets.find((d) => d.oci === 'runc')!;
  expect(runc.points.every((p) => p.run === b.runId)).toBe(true);
  expect(runc.q1).not.toBeNull();
  expect(runc.q1!).toBeLessThanOrEqual(runc.median!);
  expect(runc.q3!).toBeGreaterThanOrEqual(runc.median!);
  expect(specs.time!.datasets.flatMap((d) => d.points.map((p) => p.run)).sort()).toEqual(
    [a.runId, a.runId, b.runId].sort(),
  );
});
