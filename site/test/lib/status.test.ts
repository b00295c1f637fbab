// The home page's status per host class, on the real gate of runtime-bench check.
import { expect, test } from 'vitest';
import { gate } from '../../src/gate.ts';
import { nightlyStatus } from '../../src/lib/views/status.ts';
import { loaded, makeRun, spread } from './fixtures.ts';

const night = (d: number) => `2026-11-${String(d).padStart(2, '0')}T03:00:00Z`;
const run = (d: number, targets: { oci: string; samples: number[] }[], host = {}) =>
  makeRun(
    `202611${String(d).padStart(2, '0')}T030000Z-0000000${d}`,
    night(d),
    targets.map((t) => ({ ...t, ociVersion: '1' })),
    host,
  );

test('the first run of a host class: every row without baseline, and the page says why', () => {
  const [status] = nightlyStatus(loaded(run(1, [{ oci: 'runc', samples: spread(50) }])), gate);
  expect(status!.latest.runId).toBe('20261101T030000Z-00000001');
  expect(status!.report.counts.noBaseline).toBe(status!.report.rows.length);
  expect(status!.noBaseline).toEqual([
    { reason: 'first run: no earlier run at all', count: status!.report.rows.length },
  ]);
});

test('a target that is new tonight is named as the reason; the old one has a (short) baseline', () => {
  const runs = loaded(
    run(1, [{ oci: 'runc', samples: spread(50) }]),
    run(2, [
      { oci: 'runc', samples: spread(50) },
      { oci: 'crun', samples: spread(40) },
    ]),
  );
  const [status] = nightlyStatus(runs, gate);
  expect(status!.latest.runId).toBe('20261102T030000Z-00000002');
  expect(status!.noBaseline.map((r) => r.reason)).toEqual([
    'target containerd/crun is new: no earlier run of this host class has it',
  ]);
  // one baseline run is too few for the gate's run-level test: no verdict, and the reason says so
  expect(status!.insufficient[0]!.reason).toMatch(/^only 1 baseline run/);
});
