// Our per-call timings against critest's, the upstream CRI benchmark (cri-tools `critest
// --benchmark`), on the same stack: rounds that alternate a critest run (its pod and container
// lifecycle benchmarks, N samples each) with N iterations of our operations.container.lifecycle,
// whoever goes first alternating, then per call the two medians and their ratio ours / critest
// with a 95 % bootstrap interval, and which differences are method (docs/cri-client.md).
//   bash scripts/build-critest.sh             # once: /opt/runtime-bench/critest/<version>/bin/critest
//   runtime-bench stack up --stack critest-cmp
//   node runner/bench/critest-compare.ts --stack critest-cmp [--rounds 4] [--iterations 30]
//        [--handler runc] [--critest PATH] [--keep DIR]
//   runtime-bench stack down --stack critest-cmp
// Target (issue 43): RemoveContainer within 5 % of critest.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigSchema } from '@runtime-bench/schemas';
import { createCriClient } from '../src/cri/client.ts';
import { LIFECYCLE_CALLS, lifecycleBenchmark } from '../src/suites/lifecycle.ts';
import { runLabel } from '../src/suites/pods.ts';
import { ResourceTracker } from '../src/suites/tracker.ts';
import type { BenchmarkContext } from '../src/suites/types.ts';
import { readStackState, stackStateDir } from '../src/stack/state.ts';
import { formatNumber, terminalTable } from '../src/format/index.ts';
import { median } from '../src/stats/descriptive.ts';
import {
  compareWithCritest,
  mergeSamples,
  parseCritestBenchmark,
  toleranceVerdict,
  type CallSamples,
} from './critest-results.ts';
import { importCritestImage } from './critest-image.ts';

const DEFAULT_CRITEST = '/opt/runtime-bench/critest/1.37.0/bin/critest';
const { values } = parseArgs({
  options: {
    stack: { type: 'string', default: 'default' },
    handler: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    iterations: { type: 'string', default: '30' },
    critest: { type: 'string', default: process.env.RB_CRITEST ?? DEFAULT_CRITEST },
    keep: { type: 'string' },
  },
});
const whole = (name: string, raw: string | undefined): number => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a whole number ≥ 1, got "${raw}"`);
    process.exit(2);
  }
  return n;
};
const rounds = whole('rounds', values.rounds);
const iterations = whole('iterations', values.iterations);
const critest = values.critest!;
if (!existsSync(critest)) {
  console.error(`no critest at ${critest}: run \`bash scripts/build-critest.sh\` or pass --critest PATH`);
  process.exit(2);
}
const state = await readStackState(stackStateDir(values.stack!));
if (!state || state.pid === null) {
  console.error(
    `stack "${values.stack}" is not up: run \`runtime-bench stack up --stack ${values.stack}\` first`,
  );
  process.exit(2);
}
const handler = state.handlers.find((h) => h.name === (values.handler ?? 'runc')) ?? state.handlers[0]!;
const config = ConfigSchema.parse({});
const params = config.parameters['operations.container.lifecycle'];
const work = values.keep ?? mkdtempSync(join(tmpdir(), 'rb-critest-'));
const runId = `critest-compare-${process.pid}`;
const endpoint = `unix://${state.socket}`;

/** One critest --benchmark run: its pod and container lifecycle benchmarks, `n` samples each. */
async function critestRound(round: number): Promise<CallSamples> {
  const dir = join(work, `critest-${round}`);
  mkdirSync(dir, { recursive: true });
  const paramsFile = join(dir, 'benchmark-params.yaml');
  // Sequential samples (parallel 1) as ours; no image benchmarks (they would pull from a registry).
  writeFileSync(
    paramsFile,
    `containersNumber: ${iterations}\ncontainersNumberParallel: 1\npodsNumber: ${iterations}\npodsNumberParallel: 1\n`,
  );
  const imagesFile = join(dir, 'test-images.yaml');
  // Imported into the stack's store: critest's ImageStatus finds it and pulls nothing.
  writeFileSync(
    imagesFile,
    `defaultTestContainerImage: ${critestImage}\nwebServerTestImage: ${critestImage}\n`,
  );
  const args = [
    '--benchmark',
    `--runtime-endpoint=${endpoint}`,
    `--image-endpoint=${endpoint}`,
    `--runtime-handler=${handler.name}`,
    `--benchmarking-params-file=${paramsFile}`,
    `--benchmarking-output-dir=${dir}`,
    `--test-images-file=${imagesFile}`,
    // Its "start a container from scratch" benchmark times a whole lifecycle in one number and
    // writes no file: nothing to compare per call.
    '--ginkgo.skip=start a container from scratch',
    '--ginkgo.no-color',
  ];
  const log = join(dir, 'critest.log');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(critest, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.stderr.on('data', (b: Buffer) => chunks.push(b));
    child.on('error', reject);
    child.on('close', (c) => {
      writeFileSync(log, Buffer.concat(chunks));
      resolve(c);
    });
  });
  if (code !== 0)
    throw new Error(
      `critest exited with ${code}; its output: ${log}${values.keep ? '' : ' (pass --keep DIR to keep it)'}`,
    );
  const samples: CallSamples = {};
  for (const file of ['pod_benchmark_data.json', 'container_benchmark_data.json']) {
    const path = join(dir, file);
    if (!existsSync(path)) throw new Error(`critest wrote no ${file} (its output: ${log})`);
    mergeSamples(samples, parseCritestBenchmark(readFileSync(path, 'utf8'), path));
  }
  return samples;
}

const cri = createCriClient('grpc', state.socket, { timeoutSeconds: config.callTimeoutSeconds });
const ctx: BenchmarkContext = {
  cri,
  target: { id: `critest-compare/${handler.name}`, handler: handler.name },
  images: config.images,
  runId,
  logDir: join(work, 'logs'),
  tracker: new ResourceTracker(),
  signal: new AbortController().signal,
  callTimeoutSeconds: config.callTimeoutSeconds,
};
async function oursRound(): Promise<CallSamples> {
  const samples: CallSamples = {};
  for (let i = 0; i < iterations; i++) {
    const o = await lifecycleBenchmark.iterate(ctx, params, { index: i, warmup: false });
    if (o.failure) throw new Error(`operations.container.lifecycle: ${o.failure}`);
    mergeSamples(samples, Object.fromEntries(LIFECYCLE_CALLS.map((c) => [c, [o.values[c]!]])));
  }
  return samples;
}

// A test binary: it prints its version, then go test's "PASS".
const critestVersion =
  execFileSync(critest, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .find((line) => line.startsWith('critest version:'))
    ?.trim() ?? 'critest version unknown';
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: import.meta.dirname,
    encoding: 'utf8',
  }).trim();
} catch {
  // not a checkout: the commit stays unknown
}
mkdirSync(work, { recursive: true });
const critestImage = await importCritestImage(state, work);
const loadBefore = loadavg();
try {
  // Connection and JIT outside the measurement, as a run's warm-up does; critest connects at start.
  await cri.version();
  for (let i = 0; i < 3; i++) {
    const o = await lifecycleBenchmark.iterate(ctx, params, { index: i, warmup: true });
    if (o.failure) throw new Error(`warm-up: ${o.failure}`);
  }
  const critestSamples: CallSamples = {};
  const oursSamples: CallSamples = {};
  for (let r = 0; r < rounds; r++) {
    let theirs: CallSamples = {};
    let mine: CallSamples = {};
    const steps = [
      async () => void (theirs = await critestRound(r)),
      async () => void (mine = await oursRound()),
    ];
    for (const step of r % 2 === 0 ? steps : steps.reverse()) await step();
    mergeSamples(critestSamples, theirs);
    mergeSamples(oursSamples, mine);
    // The round's own medians of the short call the target is about: a round the host slowed
    // (another job, a build) shows here, on one side or both, before it moves the pooled ratio.
    console.error(
      `round ${r + 1}/${rounds} done (load ${loadavg()[0]!.toFixed(1)}; RemoveContainer median ` +
        `critest ${formatNumber(median(theirs.RemoveContainer!))} ms, ours ${formatNumber(median(mine.RemoveContainer!))} ms)`,
    );
  }
  const loadAfter = loadavg();
  const rows = compareWithCritest(critestSamples, oursSamples, LIFECYCLE_CALLS);
  console.log(
    `\n${state.cri} ${state.daemon.version}, ${handler.name} ${handler.version}, ${critestVersion}, runtime-bench ${commit}; ` +
      `${rounds} rounds × ${iterations}, alternating; load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ` +
      `${loadAfter.map((l) => l.toFixed(1)).join(' ')} after; ${new Date().toISOString()}\n`,
  );
  console.log(
    terminalTable(
      [
        'call',
        'n critest / ours',
        'critest median ms',
        'ours median ms',
        'ours / critest [95 %]',
        'method difference',
      ],
      rows.map((r) => [
        r.call,
        `${r.critestN} / ${r.oursN}`,
        formatNumber(r.critestMedian),
        formatNumber(r.oursMedian),
        `${r.ratio.estimate.toFixed(3)} [${r.ratio.lower.toFixed(3)}, ${r.ratio.upper.toFixed(3)}]`,
        r.method ?? 'none known (same calls, same image)',
      ]),
    ),
  );
  const remove = rows.find((r) => r.call === 'RemoveContainer');
  if (remove)
    console.log(
      `\nRemoveContainer within 5 % of critest: ${toleranceVerdict(remove.ratio, 0.05)} ` +
        `(ratio ${remove.ratio.estimate.toFixed(3)}, 95 % interval ${remove.ratio.lower.toFixed(3)} … ${remove.ratio.upper.toFixed(3)})`,
    );
  const unexplained = rows.filter((r) => r.method === null && toleranceVerdict(r.ratio, 0.05) === 'NOT met');
  console.log(
    unexplained.length === 0
      ? 'no call without a method difference lies outside ±5 % of critest'
      : `outside ±5 % with no method difference to explain it: ${unexplained.map((r) => r.call).join(', ')}`,
  );
} finally {
  await ctx.tracker.cleanup(cri, runLabel(runId));
  cri.close();
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
