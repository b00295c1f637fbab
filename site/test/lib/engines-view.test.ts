// The engines view (engine-level beside CRI-level for one OCI runtime version), from results built
// with the runner's synthetic engine-run helper and the samples of generate_difference.py, whose
// medians, differences and exact-bootstrap interval ranges (scipy) are the expectations.
import { describe, expect, test } from 'vitest';
import { buildIndex } from '../../src/lib/index-builder.ts';
import { engineOverheadView } from '../../src/lib/views/engines.ts';
import {
  CONTAINERD_RUNC,
  DOCKER_RUNC,
  PODMAN_RUNC,
  syntheticEngineRun,
  overheadFixture,
} from '../../../runner/test/support/engine-run.ts';
import { loaded } from './fixtures.ts';

const fixture = overheadFixture();

describe('engineOverheadView', () => {
  test('one run with both kinds: medians, difference, interval and ratio as scipy says', () => {
    const run = syntheticEngineRun([CONTAINERD_RUNC, DOCKER_RUNC, PODMAN_RUNC], fixture.samples);
    const groups = engineOverheadView(buildIndex(loaded(run)));
    expect(groups.map((g) => [g.targetId, g.engine, g.engineVersion, g.sameRun])).toEqual([
      ['docker/runc', 'docker', '20.10.24', true],
      ['podman/runc', 'podman', '4.3.1', true],
    ]);
    for (const f of fixture.rows) {
      const row = groups
        .find((g) => g.targetId === f.engineTarget)!
        .rows.find((r) => r.counterpart.upper === f.engineBenchmark && r.upperMetric === f.metric)!;
      expect(row.upperSide).toMatchObject({ kind: 'value', median: f.engineMedian });
      expect(row.criSide).toMatchObject({ kind: 'value', median: f.criMedian });
      expect(row.difference).toBeCloseTo(f.difference, 9);
      expect(row.ratio).toBeCloseTo(f.ratio, 9);
      expect(row.lower).toBeGreaterThanOrEqual(f.lowerRange[0]);
      expect(row.lower).toBeLessThanOrEqual(f.lowerRange[1]);
      expect(row.upper).toBeGreaterThanOrEqual(f.upperRange[0]);
      expect(row.upper).toBeLessThanOrEqual(f.upperRange[1]);
    }
    // a CRI-level target never becomes an engine group
    expect(groups.some((g) => g.targetId === 'containerd/runc')).toBe(false);
  });

  test('a CRI side from another run only on the same host; else the group says there is none', () => {
    const cri = syntheticEngineRun([CONTAINERD_RUNC], fixture.samples, {
      runId: '20261121T070000Z-0000aaaa',
      startedAt: '2026-11-21T07:00:00.000Z',
    });
    const engine = syntheticEngineRun([DOCKER_RUNC], fixture.samples, { runId: '20261121T080000Z-0000bbbb' });
    const [g] = engineOverheadView(buildIndex(loaded(cri, engine)));
    expect(g!.sameRun).toBe(false);
    expect(g!.criTarget).toMatch(/^containerd\/runc /);
    expect(g!.rows.every((r) => r.difference !== null)).toBe(true);
    const elsewhere = syntheticEngineRun([CONTAINERD_RUNC], fixture.samples, {
      runId: '20261121T070000Z-0000aaaa',
      startedAt: '2026-11-21T07:00:00.000Z',
      hostname: 'another-host',
    });
    // same hostname and host class, another kernel build: not the identical host either
    const rebooted = { ...cri, host: { ...cri.host, kernel: `${cri.host.kernel}-2` } };
    expect(engineOverheadView(buildIndex(loaded(rebooted, engine)))[0]!.criTarget).toBeNull();
    const [lone] = engineOverheadView(buildIndex(loaded(elsewhere, engine)));
    expect(lone!.criTarget).toBeNull();
    expect(lone!.noCriLevel).toMatch(/No CRI-level run .* of runc 1\.1\.5/);
    expect(lone!.rows.every((r) => r.difference === null && r.criSide.kind === 'missing')).toBe(true);
  });

  test('per benchmark pair, the CRI side is a target that ran its CRI-level benchmark', () => {
    // the engine's own run has the CRI target without any result; an older run on the host has it
    const { 'containerd/runc': _cri, ...engineOnly } = fixture.samples;
    const own = syntheticEngineRun([CONTAINERD_RUNC, DOCKER_RUNC], engineOnly, {
      runId: '20261121T080000Z-0000bbbb',
    });
    const older = syntheticEngineRun([CONTAINERD_RUNC], fixture.samples, {
      runId: '20261121T070000Z-0000aaaa',
      startedAt: '2026-11-21T07:00:00.000Z',
    });
    const [g] = engineOverheadView(buildIndex(loaded(older, own)));
    expect(g!.sameRun).toBe(false);
    expect(g!.rows.every((r) => r.criSide.kind === 'value' && r.criSide.runs[0]!.runId === older.runId)).toBe(
      true,
    );
  });

  test('other parameters on the CRI side (beyond the engine-only network) give no number', () => {
    const run = syntheticEngineRun(
      [
        { ...CONTAINERD_RUNC, parameters: () => ({ count: 20 }) },
        { ...DOCKER_RUNC, parameters: () => ({ count: 50, network: 'none' }) },
      ],
      fixture.samples,
    );
    const [g] = engineOverheadView(buildIndex(loaded(run)));
    expect(g!.rows.every((r) => r.difference === null && r.criSide.kind === 'missing')).toBe(true);
    const same = syntheticEngineRun(
      [
        { ...CONTAINERD_RUNC, parameters: () => ({ count: 20 }) },
        { ...DOCKER_RUNC, parameters: () => ({ count: 20, network: 'none' }) },
      ],
      fixture.samples,
    );
    expect(engineOverheadView(buildIndex(loaded(same)))[0]!.rows.every((r) => r.difference !== null)).toBe(
      true,
    );
  });
});
