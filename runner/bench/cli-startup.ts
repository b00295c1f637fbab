// How fast the CLI starts: `runtime-bench --help`, `list` and `validate FILE` against `crictl
// --version` (a Go binary: the floor of a CLI start on this host). Each command runs once to warm
// Node's compile cache, then `--runs` times, interleaved round by round so load drift hits all alike;
// one more row runs `--help` with an empty compile cache each time (a first start after an install).
// Wall time is measured here; CPU and peak RSS come from /usr/bin/time when it is installed.
//   node runner/bench/cli-startup.ts [--runs N] [--crictl PATH] [--result FILE]
// crictl: --crictl, else $RB_CRICTL, else on PATH, else the shared tools' (cri-tools/crictl under
// $RB_SHARED_TOOLS or <repo>/../shared/tools, as the tests find them).
// Target: --help, list and validate ≤ 0.25 s wall (median), with a warm compile cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatNumber, formatValue, terminalTable } from '../src/format/index.ts';
import { median, quantile } from '../src/stats/index.ts';
import { sharedTool } from '../test/support/shared-tools.ts';

const TARGET_SECONDS = 0.25;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '11' },
    crictl: { type: 'string' },
    result: { type: 'string' },
  },
});
const runs = Number(values.runs);
if (!(Number.isInteger(runs) && runs >= 1)) {
  console.error(`--runs must be a positive integer, got ${values.runs}`);
  process.exit(2);
}
const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'runner', 'bin', 'runtime-bench.js');

/** The first result file under data/runs: a real run, the kind of file `validate` reads. */
function firstResult(dir: string): string | undefined {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = firstResult(path);
      if (found) return found;
    } else if (name.endsWith('.json')) return path;
  }
  return undefined;
}

function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, name))
    .find((p) => existsSync(p));
}

const result = values.result ?? firstResult(join(repo, 'data', 'runs'));
const crictl =
  values.crictl ?? process.env.RB_CRICTL ?? onPath('crictl') ?? sharedTool('cri-tools/crictl') ?? undefined;
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Subject {
  label: string;
  argv: string[];
  /** Compile cache directory per run: a fresh one for the cold row. */
  coldCache?: boolean;
  target: boolean;
}

const rb = (...args: string[]): string[] => [process.execPath, bin, ...args];
const subjects: Subject[] = [
  { label: 'runtime-bench --help', argv: rb('--help'), target: true },
  { label: 'runtime-bench list', argv: rb('list'), target: true },
  ...(result ? [{ label: 'runtime-bench validate FILE', argv: rb('validate', result), target: true }] : []),
  { label: 'runtime-bench --help (empty compile cache)', argv: rb('--help'), coldCache: true, target: false },
  ...(crictl ? [{ label: 'crictl --version', argv: [crictl, '--version'], target: false }] : []),
];

interface Sample {
  wall: number;
  cpu: number | null;
  rssKiB: number | null;
}

const warmCache = mkdtempSync(join(tmpdir(), 'rb-bench-cc-'));

function measure(s: Subject): Sample {
  const cache = s.coldCache ? mkdtempSync(join(tmpdir(), 'rb-bench-cc-')) : warmCache;
  const report = join(cache, 'time.txt');
  const argv = gnuTime ? [gnuTime, '-f', '%U %S %M', '-o', report, ...s.argv] : s.argv;
  const start = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_COMPILE_CACHE: cache },
  });
  const wall = (performance.now() - start) / 1000;
  if (r.status !== 0) {
    console.error(`${s.label} exited with ${r.status}: ${r.stderr.toString().trim()}`);
    process.exit(1);
  }
  let cpu: number | null = null;
  let rssKiB: number | null = null;
  if (gnuTime) {
    const [user, sys, rss] = readFileSync(report, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
    cpu = user! + sys!;
    rssKiB = rss!;
  }
  if (s.coldCache) rmSync(cache, { recursive: true, force: true });
  return { wall, cpu, rssKiB };
}

try {
  for (const s of subjects) measure(s); // warm-up: fills the compile cache, loads the page cache
  const samples = new Map<Subject, Sample[]>(subjects.map((s) => [s, []]));
  for (let round = 0; round < runs; round++) {
    // Rotate the order each round: no command always runs first (or right after crictl).
    const order = subjects.map((_, i) => subjects[(i + round) % subjects.length]!);
    for (const s of order) samples.get(s)!.push(measure(s));
  }
  const seconds = (v: number): string => formatValue(v, 's');
  const rows = subjects.map((s) => {
    const xs = samples.get(s)!;
    const wall = xs.map((x) => x.wall);
    const cpu = xs.flatMap((x) => (x.cpu === null ? [] : [x.cpu]));
    const rss = xs.flatMap((x) => (x.rssKiB === null ? [] : [x.rssKiB]));
    return [
      s.label,
      seconds(median(wall)),
      seconds(quantile(wall, 0.9)),
      cpu.length ? seconds(median(cpu)) : '–',
      rss.length ? formatValue(median(rss) * 1024, 'bytes') : '–',
      s.target
        ? median(wall) <= TARGET_SECONDS
          ? `yes (≤ ${TARGET_SECONDS} s)`
          : `NO (> ${TARGET_SECONDS} s)`
        : '',
    ];
  });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `CLI start-up, ${runs} runs each after one warm-up, interleaved; node ${process.version}; load average ${load}`,
  );
  console.log(
    terminalTable(
      ['command', 'wall median', 'wall p90', 'CPU median', 'max RSS median', 'meets target'],
      rows,
      {
        align: ['left', 'right', 'right', 'right', 'right', 'left'],
      },
    ),
  );
  if (!crictl)
    console.log('crictl not found (--crictl, RB_CRICTL, PATH or RB_SHARED_TOOLS): no baseline row');
  if (!gnuTime) console.log('/usr/bin/time not installed: no CPU or RSS columns');
  console.log(`(${formatNumber(runs)} runs; validate reads ${result ?? 'no file: data/runs is empty'})`);
} finally {
  rmSync(warmCache, { recursive: true, force: true });
}
