// The one overhead estimator (overhead/estimate.ts) on the Kubernetes shape: each metric pair of
// kubernetes.pod-startup beside operations.container.lifecycle, and the Kubernetes pairing rule.
// Samples are chosen so that the bootstrap distribution of each median can be written down by
// hand: a resample of two values {a, b} has median a (¼), (a + b) / 2 (½) or b (¼), so the
// 2.5 % and 97.5 % quantiles of upper − CRI are its smallest and largest values (each ≥ 1/16 > 2.5 %).
import { describe, expect, test } from 'vitest';
import { kubernetesCounterpart } from '../../../src/overhead/counterparts.ts';
import { overheadEstimate } from '../../../src/overhead/estimate.ts';
import { pairsWith, type PairingTarget } from '../../../src/overhead/pairing.ts';

const startup = kubernetesCounterpart('kubernetes.pod-startup')!;

/** benchmark · metric → samples (ms) */
const SAMPLES: Record<string, number[]> = {
  // CRI side constant: its resampled median is always 20
  'operations.container.lifecycle · create-and-run': [20, 20],
  // medians 30 (¼), 32 (½), 34 (¼) → differences 10, 12, 14
  'kubernetes.pod-startup · cri': [30, 34],
  // one sample: a difference, no interval
  'kubernetes.pod-startup · started': [1000],
};

const estimates = () =>
  startup.metrics.map((m) => ({
    pair: `${m.upper} → ${m.cri}`,
    ...overheadEstimate(SAMPLES[`${startup.cri} · ${m.cri}`]!, SAMPLES[`${startup.upper} · ${m.upper}`]!, {
      seed: 1,
    }),
  }));

describe('overheadEstimate on the Kubernetes pairs', () => {
  test('the pod-startup pairs are the kubelet CRI time and the pod start beside create-and-run', () => {
    expect(startup.layer).toBe('kubernetes');
    expect(startup.cri).toBe('operations.container.lifecycle');
    expect(startup.metrics).toEqual([
      { upper: 'cri', cri: 'create-and-run' },
      { upper: 'started', cri: 'create-and-run' },
    ]);
  });

  test('pod − CRI median with its interval, and the ratio, as worked out by hand', () => {
    const [cri, started] = estimates();
    // medians 32 and 20: difference 12, ratio 1.6; interval [10, 14]
    expect(cri).toEqual({
      pair: 'cri → create-and-run',
      upperLevel: { n: 2, median: 32 },
      criLevel: { n: 2, median: 20 },
      difference: 12,
      lower: 10,
      upper: 14,
      ratio: 1.6,
    });
    // one pod sample: 1000 − 20 = 980, ratio 50, and no interval
    expect(started).toEqual({
      pair: 'started → create-and-run',
      upperLevel: { n: 1, median: 1000 },
      criLevel: { n: 2, median: 20 },
      difference: 980,
      lower: null,
      upper: null,
      ratio: 50,
    });
  });

  test('both sides resampled independently: the interval spans both sides’ spread', () => {
    // CRI {1, 3}: medians 1, 2, 3; pod {5, 9}: 5, 7, 9; pod − CRI from 5 − 3 = 2 (1/16) to 9 − 1 = 8 (1/16)
    const e = overheadEstimate([1, 3], [5, 9], { seed: 7 });
    expect([e.difference, e.lower, e.upper, e.ratio]).toEqual([5, 2, 8, 3.5]);
  });

  test('a missing side gives no number; a CRI median of 0 gives no ratio', () => {
    expect(overheadEstimate([], [30, 34], { seed: 1 })).toMatchObject({
      difference: null,
      lower: null,
      upper: null,
      ratio: null,
      criLevel: { n: 0, median: null },
    });
    expect(overheadEstimate([0, 0], [3, 3], { seed: 1 })).toMatchObject({ difference: 3, ratio: null });
  });
});

describe('the Kubernetes pairing rule', () => {
  const target = (t: Partial<PairingTarget>): PairingTarget => ({
    transport: 'grpc',
    criName: 'containerd',
    criVersion: '2.1.4',
    handler: 'runc',
    ociName: 'runc',
    ociVersion: '1.3.6',
    ...t,
  });
  // a node does not report its OCI runtime version through the kubelet
  const pod = target({ transport: 'kubernetes', ociVersion: 'unknown' });

  test('a CRI-level target of the same CRI runtime and handler pairs, whatever its versions', () => {
    expect(pairsWith('kubernetes', pod, target({}))).toBe(true);
    expect(pairsWith('kubernetes', pod, target({ transport: 'crictl', criVersion: '1.7.0' }))).toBe(true);
  });

  test('another CRI runtime, another handler, or a target that is not CRI-level does not', () => {
    expect(pairsWith('kubernetes', pod, target({ criName: 'cri-o' }))).toBe(false);
    expect(pairsWith('kubernetes', pod, target({ handler: 'runsc' }))).toBe(false);
    expect(pairsWith('kubernetes', pod, target({ transport: 'engine' }))).toBe(false);
    expect(pairsWith('kubernetes', pod, target({ transport: 'kubernetes' }))).toBe(false);
  });

  test('the engine rule is the OCI runtime version instead', () => {
    const docker = target({ transport: 'engine', criName: 'docker', handler: 'runc' });
    expect(pairsWith('engine', docker, target({}))).toBe(true);
    expect(pairsWith('engine', docker, target({ ociVersion: '1.2.0' }))).toBe(false);
    // the kubernetes rule would refuse it: another CRI runtime name
    expect(pairsWith('kubernetes', docker, target({}))).toBe(false);
  });
});
