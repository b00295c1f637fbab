// The engine overhead (overhead/engine-runs.ts): which targets pair, which metrics pair, and the
// numbers — medians, difference, its bootstrap interval, ratio — against generate_difference.py's
// exact-bootstrap references (scipy), never against the code under test.
import { describe, expect, test } from 'vitest';
import { ENGINE_BENCHMARKS } from '../../../src/engine/benchmarks.ts';
import { ENGINE_COUNTERPARTS } from '../../../src/overhead/counterparts.ts';
import { sameOciRuntime } from '../../../src/overhead/pairing.ts';
import { BENCHMARKS } from '../../../src/suites/registry.ts';
import { endOfRunReport } from '../../../src/run/report.ts';
import { overheadLines } from '../../../src/overhead/engine-format.ts';
import { compareRuns, engineOverhead, overheadReport, renderCompare } from '../../../src/compare/index.ts';
import { expectClose } from '../stats/fixtures.ts';
import {
  CONTAINERD_RUNC,
  DOCKER_RUNC,
  PODMAN_RUNC,
  syntheticEngineRun,
  type SampleTable,
  type SyntheticEngineTarget,
  overheadFixture,
} from '../../support/engine-run.ts';

const fixture = overheadFixture();

// crun under docker with no CRI-level crun in the run: no row
const DOCKER_CRUN: SyntheticEngineTarget = {
  ...DOCKER_RUNC,
  id: 'docker/crun',
  oci: 'crun',
  ociVersion: '1.8.1',
};

const samples: SampleTable = {
  ...fixture.samples,
  'docker/crun': { 'engine.startup.latency': { latency_median: [200, 210, 205] } },
};

describe('the counterpart table', () => {
  test('names engine and CRI-level benchmarks that exist, with metrics both report in the same unit', () => {
    for (const c of ENGINE_COUNTERPARTS) {
      expect(c.layer).toBe('engine');
      const engine = ENGINE_BENCHMARKS.find((b) => b.definition.name === c.upper)!.definition;
      const cri = BENCHMARKS.find((b) => b.definition.name === c.cri)!.definition;
      for (const pair of c.metrics) {
        // engine.* benchmarks keep the CRI-level metric names
        expect(pair.upper).toBe(pair.cri);
        const em = engine.metrics.find((m) => m.name === pair.upper);
        const cm = cri.metrics.find((m) => m.name === pair.cri);
        expect(em, `${c.upper} ${pair.upper}`).toBeDefined();
        expect(cm, `${c.cri} ${pair.cri}`).toBeDefined();
        expect(em!.unit).toBe(cm!.unit);
      }
    }
    // every engine benchmark has its pair
    expect(ENGINE_COUNTERPARTS.map((c) => c.upper).sort()).toEqual(
      ENGINE_BENCHMARKS.map((b) => b.definition.name).sort(),
    );
    for (const c of ENGINE_COUNTERPARTS) {
      for (const h of c.headline) expect(c.metrics.map((m) => m.upper)).toContain(h);
      // every engine pair says what each side times (compare prints it)
      expect(c.spans).not.toBeNull();
    }
  });
  test('the same OCI runtime is the same name at the same known version', () => {
    const t = (ociName: string, ociVersion: string) => ({ ociName, ociVersion });
    expect(sameOciRuntime(t('runc', '1.1.5'), t('runc', '1.1.5'))).toBe(true);
    expect(sameOciRuntime(t('runc', '1.1.5'), t('runc', '1.1.12'))).toBe(false);
    expect(sameOciRuntime(t('runc', '1.1.5'), t('crun', '1.1.5'))).toBe(false);
    expect(sameOciRuntime(t('runc', 'unknown'), t('runc', 'unknown'))).toBe(false);
  });
});

// Docker's startup.latency ran with another count than containerd's: no overhead for it.
const differingParameters = () =>
  syntheticEngineRun(
    [CONTAINERD_RUNC, { ...DOCKER_RUNC, parameters: () => ({ count: 50, network: 'none' }) }],
    samples,
  );

describe('engine overhead within one run', () => {
  const run = syntheticEngineRun([CONTAINERD_RUNC, DOCKER_RUNC, PODMAN_RUNC, DOCKER_CRUN], samples);
  const rows = engineOverhead([run], { seed: 2026 });

  test('one row per engine target × counterpart metric it reported, beside the CRI-level target of its runtime', () => {
    expect(
      rows.map((r) => [r.engineTarget, r.engineBenchmark, r.metric, r.criTarget, r.criBenchmark]),
    ).toEqual(
      [...fixture.rows]
        .sort(
          (a, b) =>
            ENGINE_COUNTERPARTS.findIndex((c) => c.upper === a.engineBenchmark) -
            ENGINE_COUNTERPARTS.findIndex((c) => c.upper === b.engineBenchmark),
        )
        .map((r) => [r.engineTarget, r.engineBenchmark, r.metric, r.criTarget, r.criBenchmark]),
    );
    expect(rows.every((r) => r.sameRun && r.oci === 'runc 1.1.5')).toBe(true);
  });

  test.each(fixture.rows)(
    '$engineTarget $engineBenchmark $metric: medians, difference and interval as scipy says',
    (f) => {
      const row = rows.find(
        (r) =>
          r.engineTarget === f.engineTarget &&
          r.engineBenchmark === f.engineBenchmark &&
          r.metric === f.metric,
      )!;
      expectClose(row.engine.median, f.engineMedian);
      expectClose(row.cri.median, f.criMedian);
      expectClose(row.difference, f.difference);
      expectClose(row.ratio, f.ratio);
      expect(row.lower).toBeGreaterThanOrEqual(f.lowerRange[0]);
      expect(row.lower).toBeLessThanOrEqual(f.lowerRange[1]);
      expect(row.upper).toBeGreaterThanOrEqual(f.upperRange[0]);
      expect(row.upper).toBeLessThanOrEqual(f.upperRange[1]);
      expect(row.notes).toEqual([]);
    },
  );

  test('parameters that differ beyond the engine-only network give no number, and say why', () => {
    const differing = differingParameters();
    const r = engineOverhead([differing]);
    expect(r.length).toBeGreaterThan(0);
    for (const row of r) {
      expect(row.difference).toBeNull();
      expect(row.notes.join(' ')).toMatch(/parameters differ/);
    }
    // the network parameter alone (every engine slot has it) does not count
    const same = syntheticEngineRun(
      [CONTAINERD_RUNC, { ...DOCKER_RUNC, parameters: () => ({ network: 'none' }) }],
      samples,
    );
    expect(engineOverhead([same]).every((row) => row.difference !== null)).toBe(true);
  });

  test('a reason shared by a target’s rows is printed in full once, the later rows point to it', () => {
    const differing = differingParameters();
    const rows = engineOverhead([differing]);
    expect(rows.length).toBeGreaterThan(1);
    const sentences = overheadLines(rows, 0.95).filter((l) => l.includes('engine overhead on'));
    expect(sentences).toHaveLength(rows.length);
    expect(sentences.filter((l) => l.includes('parameters differ'))).toHaveLength(1);
    expect(sentences[0]).toContain('parameters differ');
    for (const l of sentences.slice(1)) expect(l).toMatch(/: no overhead, for the reason given above$/);
  });
});

describe('only CRI-level targets that ran the counterpart benchmark are paired', () => {
  test('a CRI target without startup.latency gives no rows (no column of "no result")', () => {
    const { 'containerd/runc': _cri, ...engineOnly } = samples;
    const run = syntheticEngineRun([CONTAINERD_RUNC, DOCKER_RUNC], engineOnly);
    expect(engineOverhead([run])).toEqual([]);
    // the one with the benchmark, in another run on the same host, is taken instead
    const criRun = syntheticEngineRun([CONTAINERD_RUNC], samples, { runId: '20261121T080000Z-0000cccc' });
    const rows = engineOverhead([run, criRun], { seed: 2026 });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.criRunId === criRun.runId && r.difference !== null)).toBe(true);
  });
});

describe('engine overhead across runs', () => {
  const criRun = syntheticEngineRun([CONTAINERD_RUNC], samples, { runId: '20261121T080000Z-0000aaaa' });
  const engineRun = syntheticEngineRun([DOCKER_RUNC], samples, {
    runId: '20261121T090000Z-0000bbbb',
    startedAt: '2026-11-21T09:00:00.000Z',
  });
  test('pairs with another run only on a host with the identical fingerprint, and says so', () => {
    const rows = engineOverhead([criRun, engineRun], { seed: 2026 });
    expect(rows.length).toBe(2);
    expect(rows.every((r) => !r.sameRun && r.criRunId === criRun.runId)).toBe(true);
    expect(rows[0]!.notes[0]).toMatch(/another time/);
    const elsewhere = syntheticEngineRun([CONTAINERD_RUNC], samples, { hostname: 'other-host' });
    expect(engineOverhead([elsewhere, engineRun])).toEqual([]);
  });
});

describe('compare shows the overhead', () => {
  const run = syntheticEngineRun([CONTAINERD_RUNC, DOCKER_RUNC, PODMAN_RUNC, DOCKER_CRUN], samples);
  test('one file alone: the overhead report, in every format, JSON fields added only', () => {
    const report = overheadReport({ run, label: 'r.json' }, { seed: 2026 });
    expect(report.rows).toEqual([]);
    const f = fixture.rows.find((r) => r.engineTarget === 'docker/runc' && r.metric === 'latency_median')!;
    const table = renderCompare(report, 'table');
    expect(table).toContain(
      `docker/runc (docker 20.10.24): engine overhead on engine.startup.latency latency_median = +${Number(f.difference.toPrecision(4))} ms [95 % CI +`,
    );
    expect(table).toContain('over containerd/runc (containerd 1.6.20; runc 1.1.5;');
    expect(table).toContain('engine.startup.latency times host clock before');
    expect(renderCompare(report, 'markdown')).toContain('engine overhead on engine.startup.latency');
    const json = JSON.parse(renderCompare(report, 'json')) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        'kind',
        'baseline',
        'candidate',
        'rows',
        'onlyInBaseline',
        'onlyInCandidate',
        'notes',
        'engineOverhead',
      ]),
    );
  });
  test('an explicit pair narrows the overhead to it', () => {
    const report = compareRuns(
      { run, label: 'r.json', target: 'containerd/runc' },
      { run, label: 'r.json', target: 'podman/runc' },
    );
    expect(new Set(report.engineOverhead.map((r) => `${r.engineTarget}>${r.criTarget}`))).toEqual(
      new Set(['podman/runc>containerd/runc']),
    );
  });
});

describe('the end of a run shows the overhead', () => {
  test('one headline metric per benchmark pair, and where the rest is', () => {
    const run = syntheticEngineRun([CONTAINERD_RUNC, DOCKER_RUNC, PODMAN_RUNC], samples);
    const out = endOfRunReport(run, '/tmp/r.json').join('\n');
    const f = fixture.rows.find((r) => r.engineTarget === 'podman/runc' && r.metric === 'latency_median')!;
    expect(out).toContain(
      `podman/runc (podman 4.3.1): engine overhead on engine.startup.latency latency_median = +${Number(f.difference.toPrecision(4))} ms`,
    );
    expect(out).toContain('runtime-bench compare /tmp/r.json');
    expect(out).not.toContain('latency_p99 =');
  });
});
