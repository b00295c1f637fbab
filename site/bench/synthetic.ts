// Synthetic result files for the scale benchmark and for tests while no real data exists.
// Their numbers are invented: every file says so (hostname "synthetic-…", tool.version
// "synthetic", provenance in incompleteReason-free `config.name`), and the site labels them.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  ConfigSchema,
  RESULT_SCHEMA_VERSION,
  type BenchmarkDefinition,
  type Direction,
  type RunResult,
  type Unit,
} from '@runtime-bench/schemas';
import { BENCHMARKS } from '@runtime-bench/runner/suites';
import { KUBERNETES_COUNTERPARTS } from '@runtime-bench/runner/overhead';
import { parseResult, runPathInDataDir, serializeResult } from '@runtime-bench/runner';
import { summarize } from '@runtime-bench/runner/stats';

/** The marker every synthetic file carries in tool.version; the site shows such runs as synthetic. */
export const SYNTHETIC_TOOL_VERSION = 'synthetic';

/** Deterministic PRNG (mulberry32) so that a seed always yields the same files. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Combo {
  cri: 'containerd' | 'cri-o';
  oci: 'runc' | 'crun' | 'runsc' | 'youki';
  /** latency multiplier relative to containerd/runc */
  factor: number;
}

const COMBOS: Combo[] = [
  { cri: 'containerd', oci: 'runc', factor: 1 },
  { cri: 'containerd', oci: 'crun', factor: 0.8 },
  { cri: 'containerd', oci: 'runsc', factor: 2.5 },
  { cri: 'containerd', oci: 'youki', factor: 0.85 },
  { cri: 'cri-o', oci: 'runc', factor: 1.1 },
  { cri: 'cri-o', oci: 'crun', factor: 0.9 },
];

const VERSIONS: Record<string, string[]> = {
  containerd: ['1.6.20', '1.7.2', '1.7.13', '2.0.0'],
  'cri-o': ['1.28.1', '1.29.0', '1.30.2'],
  runc: ['1.1.5', '1.1.12', '1.2.0'],
  crun: ['1.8.7', '1.9.2', '1.14.4'],
  runsc: ['20231009.0', '20240212.0'],
  youki: ['0.3.0', '0.3.3'],
};

/** A plausible magnitude per unit, so that axes and unit scaling look like real data. */
const BASE_VALUE: Record<string, number> = {
  ns: 80_000,
  us: 900,
  ms: 45,
  s: 6,
  'events/s': 1500,
  'MiB/s': 3000,
  bytes: 2_500_000,
  count: 3,
  ratio: 0.6,
  IOPS: 4000,
};

const HOSTS = [
  { cpuModel: 'Synthetic CPU A', cpus: 2, kernel: '6.1.0-18-amd64' },
  { cpuModel: 'Synthetic CPU B', cpus: 8, kernel: '6.8.0-31-generic' },
];

/** One synthetic run; `index` spreads runs over nights, versions and hosts. */
export function syntheticRun(index: number, seed = 1, samplesPerMetric = 5): RunResult {
  const rand = rng(seed * 1_000_003 + index);
  const noise = () => 1 + (rand() - 0.5) * 0.2;
  const day = new Date(Date.UTC(2026, 0, 1) + index * 3_600_000 * 6);
  const stamp = day
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const runId = `${stamp}-${(index >>> 0).toString(16).padStart(8, '0').slice(-8)}`;
  const host = HOSTS[index % HOSTS.length]!;
  const pick = (name: string) => {
    const list = VERSIONS[name]!;
    // Versions advance with time so that trends over versions and nights line up.
    return list[Math.min(list.length - 1, Math.floor((index / 40) % (list.length + 1)))]!;
  };
  const config = ConfigSchema.parse({ name: 'synthetic', runs: samplesPerMetric });
  // Three combinations a night — containerd/runc always, two others in turn — keep a file near the
  // ~150 KB of a real nightly file while every combination still appears every few nights.
  const combos = [COMBOS[0]!, COMBOS[1 + (index % 5)]!, COMBOS[1 + ((index + 2) % 5)]!];
  const targets = combos.map((c) => ({
    id: `${c.cri}/${c.oci}`,
    cri: {
      name: c.cri,
      version: pick(c.cri),
      apiVersion: 'v1',
      endpoint: `unix:///run/${c.cri}/${c.cri}.sock`,
    },
    handler: c.oci,
    oci: { name: c.oci, version: pick(c.oci), path: `/usr/local/sbin/${c.oci}` },
    transport: 'grpc' as const,
  }));
  const metric = (name: string, unit: Unit, direction: Direction, base: number) => {
    const samples = Array.from({ length: samplesPerMetric }, () => Number((base * noise()).toFixed(4)));
    return {
      name,
      unit,
      direction,
      samples,
      errors: { count: 0, messages: [] },
      summary: summarize(samples),
    };
  };
  // Every benchmark family of the registry, with its real definition and default parameters, so
  // that a synthetic file is as heavy as a real nightly file (all 13 families).
  const results: RunResult['results'] = [];
  for (const [i, c] of combos.entries()) {
    const target = targets[i]!;
    for (const b of BENCHMARKS) {
      const def = b.definition;
      if (c.oci === 'youki' && index % 5 === 0 && def.name === 'operations.container.lifecycle') {
        results.push({
          benchmark: def.name,
          target: target.id,
          status: 'unsupported',
          reason: 'synthetic: the runtime refused the feature',
          parameters: b.parameters(config) as Record<string, unknown>,
          attempts: 0,
          failedAttempts: 0,
          metrics: [],
        });
        continue;
      }
      results.push({
        benchmark: def.name,
        target: target.id,
        status: 'ok',
        parameters: b.parameters(config) as Record<string, unknown>,
        attempts: samplesPerMetric,
        failedAttempts: 0,
        metrics: def.metrics.map((m) => {
          const factor = m.direction === 'lower' ? c.factor : 1 / c.factor;
          return metric(m.name, m.unit, m.direction, (BASE_VALUE[m.unit] ?? 10) * factor);
        }),
      });
    }
  }
  const finished = new Date(day.getTime() + 20 * 60_000);
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId,
    status: 'complete',
    startedAt: day.toISOString(),
    finishedAt: finished.toISOString(),
    tool: { name: 'runtime-bench', version: SYNTHETIC_TOOL_VERSION, gitCommit: null, node: process.version },
    host: syntheticHost(`synthetic-host-${index % HOSTS.length}`, host),
    components: [
      ...targets.map((t) => ({ name: t.cri.name, role: 'cri' as const, version: t.cri.version })),
      ...targets.map((t) => ({ name: t.oci.name, role: 'oci' as const, version: t.oci.version })),
      { name: 'sysbench', role: 'workload' as const, version: '1.0.20' },
    ].filter((c, i, all) => all.findIndex((o) => o.name === c.name && o.version === c.version) === i),
    config,
    configHash: `sha256:${'5'.repeat(64)}`,
    targets,
    benchmarks: BENCHMARKS.map((b) => b.definition),
    results,
  };
}

/** Writes synthetic run `index` at its place under `<dataDir>/runs/` and returns its path. */
export async function writeSyntheticRun(dataDir: string, index: number, seed = 1): Promise<string> {
  const [path] = await writeRuns(dataDir, [syntheticRun(index, seed)]);
  return path!;
}

/**
 * Writes `count` synthetic result files under `<dataDir>/runs/yyyy/mm/dd/<run-id>.json` and
 * returns their paths. The first file is validated with the shared schema; the rest share its shape.
 */
export async function writeSyntheticRuns(dataDir: string, count: number, seed = 1): Promise<string[]> {
  const paths: string[] = [];
  const dirs = new Set<string>();
  for (let i = 0; i < count; i++) {
    const run = syntheticRun(i, seed);
    const text = serializeResult(run);
    if (i === 0) parseResult(text, 'synthetic run 0');
    const path = runPathInDataDir(dataDir, run);
    const dir = dirname(path);
    if (!dirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      dirs.add(dir);
    }
    await writeFile(path, text);
    paths.push(path);
  }
  return paths;
}

/** The metrics of kubernetes.pod-startup as the runner defines them (its definition is not exported). */
const POD_STARTUP_METRICS: { name: string; base: number; description: string }[] = [
  { name: 'scheduled', base: 15, description: 'create call → spec.nodeName seen' },
  { name: 'started', base: 1100, description: 'create call → a container running seen' },
  { name: 'ready', base: 1150, description: 'create call → Ready seen (the SLI)' },
  { name: 'cri', base: 160, description: "the kubelet's CRI time for the pod" },
  { name: 'kubelet-share', base: 900, description: 'started − scheduled − cri' },
];

/**
 * The pod-level benchmark definitions: kubernetes.pod-startup, and each other pod-level benchmark
 * of the runner's KUBERNETES_COUNTERPARTS table with its CRI-level counterpart's metrics (name for name).
 */
export function kubernetesDefinitions(): BenchmarkDefinition[] {
  const byName = new Map(BENCHMARKS.map((b) => [b.definition.name, b.definition]));
  return KUBERNETES_COUNTERPARTS.map((c) => {
    if (c.upper === 'kubernetes.pod-startup')
      return {
        name: c.upper,
        description: 'Pod start through the kubelet per RuntimeClass (synthetic definition).',
        // as the runner's definition cites them (free text, not study keys)
        origin: ['Kubernetes pod-startup SLO (clusterloader2)', 'kube-burner podLatency', 'KIIT'],
        metrics: POD_STARTUP_METRICS.map((m) => ({
          name: m.name,
          unit: 'ms' as const,
          direction: 'lower' as const,
          description: m.description,
        })),
      };
    const cri = byName.get(c.cri)!;
    return { ...cri, name: c.upper, description: `${cri.description} As pods through the kubelet.` };
  });
}

export interface SyntheticClass {
  runtimeClass: string;
  handler: string;
}

/**
 * One synthetic cluster run as the runner writes it: one result file per node, each node × RuntimeClass
 * a target (id "<cluster>/<RuntimeClass>", transport "kubernetes"), hosts of HOSTS[hostIndex] (so
 * that they share a host class with syntheticRun(i) for i % HOSTS.length === hostIndex).
 */
export function syntheticKubernetesRuns(
  startedAt: string,
  options: { nodes: string[]; classes: SyntheticClass[]; hostIndex: number; seed?: number; samples?: number },
): RunResult[] {
  const { nodes, classes, hostIndex, seed = 7, samples: perMetric = 5 } = options;
  const rand = rng(seed);
  const noise = () => 1 + (rand() - 0.5) * 0.2;
  const host = HOSTS[hostIndex]!;
  const definitions = kubernetesDefinitions();
  const config = ConfigSchema.parse({ name: 'synthetic', runs: perMetric });
  const stamp = startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return nodes.map((node, n) => {
    const targets = classes.map((c) => ({
      id: `synthetic-cluster/${c.runtimeClass}`,
      cri: { name: 'containerd', version: '2.1.4', apiVersion: 'v1', endpoint: `kubernetes://${node}` },
      handler: c.handler,
      oci: { name: c.handler, version: 'unknown', path: null },
      transport: 'kubernetes' as const,
      kubernetes: {
        node,
        runtimeClass: c.runtimeClass,
        kubeletVersion: 'v1.34.4',
        containerRuntimeVersion: 'containerd://2.1.4',
      },
    }));
    const results: RunResult['results'] = [];
    for (const [i, c] of classes.entries()) {
      const factor = COMBOS.find((x) => x.cri === 'containerd' && x.oci === c.handler)?.factor ?? 1.5;
      for (const def of definitions) {
        results.push({
          benchmark: def.name,
          target: targets[i]!.id,
          status: 'ok',
          parameters: { runtimeClass: c.runtimeClass, node },
          attempts: perMetric,
          failedAttempts: 0,
          metrics: def.metrics.map((m) => {
            const startup = POD_STARTUP_METRICS.find(
              (p) => def.name === 'kubernetes.pod-startup' && p.name === m.name,
            );
            // pods cost ~20 % more than the same work straight over the CRI
            const base = startup
              ? startup.base * (m.name === 'cri' ? factor : 1)
              : (BASE_VALUE[m.unit] ?? 10) * 1.2 * (m.direction === 'lower' ? factor : 1 / factor);
            const values = Array.from({ length: perMetric }, () => Number((base * noise()).toFixed(4)));
            return {
              name: m.name,
              unit: m.unit,
              direction: m.direction,
              samples: values,
              errors: { count: 0, messages: [] },
              summary: summarize(values),
            };
          }),
        });
      }
    }
    return {
      schemaVersion: RESULT_SCHEMA_VERSION,
      runId: `${stamp}-${(0xc0de0000 + n).toString(16)}`,
      status: 'complete',
      startedAt,
      finishedAt: new Date(Date.parse(startedAt) + 10 * 60_000).toISOString(),
      tool: {
        name: 'runtime-bench',
        version: SYNTHETIC_TOOL_VERSION,
        gitCommit: null,
        node: process.version,
      },
      host: syntheticHost(node, host),
      components: [
        { name: 'kubelet', role: 'tool', version: 'v1.34.4' },
        { name: 'containerd', role: 'cri', version: '2.1.4' },
      ],
      config,
      configHash: `sha256:${'5'.repeat(64)}`,
      targets,
      benchmarks: definitions,
      results,
    };
  });
}

/** Writes result files at their place under `<dataDir>/runs/` and returns their paths. */
export async function writeRuns(dataDir: string, runs: readonly RunResult[]): Promise<string[]> {
  const paths: string[] = [];
  for (const run of runs) {
    // The runner's data layout; written without writeResultFile's validation, which would
    // dominate generating ten thousand files for the scale bench.
    const path = runPathInDataDir(dataDir, run);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, serializeResult(run));
    paths.push(path);
  }
  return paths;
}

/** The fingerprint of a synthetic host (a CRI-level host or a cluster's node) of one class. */
function syntheticHost(hostname: string, host: { kernel: string; cpuModel: string; cpus: number }) {
  return {
    hostname,
    kernel: host.kernel,
    os: 'Synthetic Linux (generated by site/bench/synthetic.ts, not a measurement)',
    arch: 'x64',
    cpuModel: host.cpuModel,
    cpus: host.cpus,
    memoryBytes: 16 * 1024 ** 3,
    virtualization: null,
    cgroup: { mode: 'v2' as const, v2Controllers: ['cpu', 'memory', 'pids'] },
    capabilities: { effective: '1ffffffffff', sysAdmin: true, sysResource: true },
    hostFixes: [],
  };
}
