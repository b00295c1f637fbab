// `runtime-bench sweep` end to end: two runc releases built from the Go module proxy (cached
// under /opt/runtime-bench), one containerd stack with one handler per version, one interleaved
// run, the stack gone afterwards; and two containerd releases built the same way, one stack each,
// measured in one run.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RunResultSchema, type RunResult } from '@runtime-bench/schemas';
import { runCli } from '../support/cli.ts';
import {
  cgroupsNamed,
  mountsUnder,
  onPath,
  processesUnder,
  realStackUnavailable,
  testStackName,
} from '../support/host.ts';
import { stackCgroup } from '../../src/stack/shim-cgroups.ts';

const STACK = testStackName('sweep');
const STATE_DIR = `/var/lib/runtime-bench/stacks/${STACK}`;
const unavailable = realStackUnavailable() ?? (onPath('go') ? null : 'needs go');
if (unavailable) console.warn(`SKIPPED sweep test: ${unavailable}`);

/** Two builds (cached after the first run), a stack up with image builds, a short run, a stack down. */
const SWEEP_BUDGET_MS = 60 * 60_000;

/** `sweep <specs> --name <name>` with three lifecycle repetitions; its exit and its result. */
async function sweep(
  specs: string[],
  name: string,
): Promise<{ code: number | null; stderr: string; result: RunResult | null }> {
  const work = mkdtempSync(join(tmpdir(), 'rb-sweep-'));
  const config = join(work, 'sweep.yaml');
  writeFileSync(
    config,
    'name: sweep-test\nbenchmarks: [operations.container.lifecycle]\nruns: 3\nwarmup: 1\n',
  );
  const out = join(work, 'result.json');
  const r = await runCli([
    'sweep',
    ...specs,
    '--stack',
    name,
    '--config',
    config,
    '--state',
    join(work, 'install.json'),
    '--out',
    out,
  ]);
  const result = r.code === 0 ? RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8'))) : null;
  return { code: r.code, stderr: r.stderr, result };
}

describe.skipIf(unavailable !== null)('sweep runc@1.1.5 runc@1.2.0', () => {
  test(
    'one run, one handler per version, each with its build provenance; nothing left',
    { timeout: SWEEP_BUDGET_MS },
    async () => {
      const r = await sweep(['runc@1.2.0', 'runc@1.1.5'], STACK);
      expect(r.code, r.stderr).toBe(0);
      const result = r.result!;
      expect(result.status).toBe('complete');
      // Oldest first, whatever order they were named in.
      expect(result.targets.map((t) => [t.handler, t.oci.name, t.oci.version])).toEqual([
        ['runc-1.1.5', 'runc', '1.1.5'],
        ['runc-1.2.0', 'runc', '1.2.0'],
      ]);
      expectThreeLifecycleRepetitionsEach(result);
      const runcs = result.components.filter((c) => c.role === 'oci');
      expect(runcs.map((c) => [c.version, c.build?.source, c.build?.origin])).toEqual([
        ['1.1.5', 'go', 'github.com/opencontainers/runc@v1.1.5'],
        ['1.2.0', 'go', 'github.com/opencontainers/runc@v1.2.0'],
      ]);
      expect(runcs[0]!.build!.toolchain).toMatch(/^go1\.17\./);
      expect(runcs[1]!.build!.toolchain).toMatch(/^go1\.22\./);
      // The sweep brought its stack up, so it took it down.
      expect(processesUnder(STATE_DIR)).toEqual([]);
      expect(mountsUnder(STATE_DIR)).toEqual([]);
      expect(cgroupsNamed(stackCgroup(STACK))).toEqual([]);
    },
  );
});

/** Every target of a sweep ran the lifecycle benchmark: status ok, three StartContainer samples. */
function expectThreeLifecycleRepetitionsEach(result: RunResult): void {
  for (const t of result.targets) {
    const lifecycle = result.results.find(
      (x) => x.target === t.id && x.benchmark === 'operations.container.lifecycle',
    )!;
    expect(lifecycle.status).toBe('ok');
    expect(lifecycle.metrics.find((m) => m.name === 'StartContainer')!.samples).toHaveLength(3);
  }
}

const CTD_PREFIX = testStackName('csw');

describe.skipIf(unavailable !== null)('sweep containerd@1.7.35 containerd@2.0.14', () => {
  test(
    'one stack per version, one interleaved run, each daemon with its build record; nothing left',
    { timeout: SWEEP_BUDGET_MS },
    async () => {
      const r = await sweep(['containerd@2.0.14', 'containerd@1.7.35'], CTD_PREFIX);
      expect(r.code, r.stderr).toBe(0);
      const result = r.result!;
      expect(result.status).toBe('complete');
      // Oldest first; the version each daemon reported over CRI, not the one we asked for.
      expect(result.targets.map((t) => [t.id, t.cri.version, t.handler])).toEqual([
        ['containerd-1.7.35/runc', '1.7.35', 'runc'],
        ['containerd-2.0.14/runc', '2.0.14', 'runc'],
      ]);
      expectThreeLifecycleRepetitionsEach(result);
      const daemons = result.components.filter((c) => c.role === 'cri');
      expect(daemons.map((c) => [c.version, c.build?.origin])).toEqual([
        ['1.7.35', 'github.com/containerd/containerd@v1.7.35'],
        ['2.0.14', 'github.com/containerd/containerd/v2@v2.0.14'],
      ]);
      for (const name of [`${CTD_PREFIX}-1-7-35`, `${CTD_PREFIX}-2-0-14`]) {
        const dir = `/var/lib/runtime-bench/stacks/${name}`;
        expect(processesUnder(dir)).toEqual([]);
        expect(mountsUnder(dir)).toEqual([]);
        expect(cgroupsNamed(stackCgroup(name))).toEqual([]);
      }
    },
  );
});
