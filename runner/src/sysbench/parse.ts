import { sizeInBytes } from '@runtime-bench/schemas';
/**
 * Parses sysbench 1.0.x report text into `section.key` → number, e.g.
 * "CPU speed.events per second", "General statistics.total time" (seconds),
 * "Latency (ms).95th percentile". Values with units ("0.0168s") lose the unit; the key says it.
 */
export function parseSysbenchReport(text: string): Map<string, number> {
  const values = new Map<string, number>();
  let section = '';
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\s+$/, '');
    if (!line.trim()) continue;
    const header = /^(\S.*):$/.exec(line);
    if (header) {
      section = header[1]!.trim();
      continue;
    }
    const kv = /^\s+([^:]+):\s+(-?[\d.]+(?:e[-+]?\d+)?)s?\b/.exec(line);
    if (kv && section) values.set(`${section}.${kv[1]!.trim()}`, Number(kv[2]));
  }
  return values;
}

export interface SysbenchCpuResult {
  eventsPerSecond: number;
  totalTimeSeconds: number;
  totalEvents: number;
  latencyAvgMs: number;
}

/** The numbers of a `sysbench cpu` run; throws naming the missing field when the report is incomplete. */
export function parseSysbenchCpu(text: string): SysbenchCpuResult {
  const v = parseSysbenchReport(text);
  const need = (key: string): number => {
    const value = v.get(key);
    if (value === undefined || !Number.isFinite(value)) {
      const tail = text.trim().split('\n').slice(-3).join(' | ');
      throw new Error(`sysbench output has no "${key}" (output ends: ${tail || '(empty)'})`);
    }
    return value;
  };
  return {
    eventsPerSecond: need('CPU speed.events per second'),
    totalTimeSeconds: need('General statistics.total time'),
    totalEvents: need('General statistics.total number of events'),
    latencyAvgMs: need('Latency (ms).avg'),
  };
}

/** Arguments of a sysbench cpu run in one of the two modes sysbench 1.x offers. */
export function sysbenchCpuArgs(
  p: { maxPrime: number; threads: number; timeSeconds: number; events: number },
  mode: 'time' | 'events',
): string[] {
  const bound =
    mode === 'time' ? [`--time=${p.timeSeconds}`, '--events=0'] : ['--time=0', `--events=${p.events}`];
  return ['cpu', `--cpu-max-prime=${p.maxPrime}`, `--threads=${p.threads}`, ...bound, 'run'];
}

function requireKeys(text: string): (key: string) => number {
  const v = parseSysbenchReport(text);
  return (key: string): number => {
    const value = v.get(key);
    if (value === undefined || !Number.isFinite(value)) {
      const tail = text.trim().split('\n').slice(-3).join(' | ');
      throw new Error(`sysbench output has no "${key}" (output ends: ${tail || '(empty)'})`);
    }
    return value;
  };
}

export interface SysbenchMemoryResult {
  totalTimeSeconds: number;
  totalEvents: number;
  mibTransferred: number;
  mibPerSecond: number;
  latencyMinMs: number;
  latencyAvgMs: number;
  latencyMaxMs: number;
  /** The sum of all events' latencies, in ms: sum / events is the mean below the printed 0.01 ms. */
  latencySumMs: number;
}

/**
 * The numbers of a `sysbench memory` run. Throughput is not a "key: value" line but
 * "1024.00 MiB transferred (22800.25 MiB/sec)".
 */
export function parseSysbenchMemory(text: string): SysbenchMemoryResult {
  const need = requireKeys(text);
  const transferred = /^([\d.]+) MiB transferred \(([\d.]+) MiB\/sec\)/m.exec(text);
  if (!transferred)
    throw new Error(
      `sysbench memory output has no "MiB transferred" line (output ends: ${text.trim().split('\n').slice(-3).join(' | ') || '(empty)'})`,
    );
  return {
    totalTimeSeconds: need('General statistics.total time'),
    totalEvents: need('General statistics.total number of events'),
    mibTransferred: Number(transferred[1]),
    mibPerSecond: Number(transferred[2]),
    latencyMinMs: need('Latency (ms).min'),
    latencyAvgMs: need('Latency (ms).avg'),
    latencyMaxMs: need('Latency (ms).max'),
    latencySumMs: need('Latency (ms).sum'),
  };
}

/** Arguments of a sysbench memory run over a fixed total size (no time bound: total time is the metric). */
export function sysbenchMemoryArgs(p: {
  blockSize: string;
  totalSize: string;
  operation: string;
  accessMode: string;
  threads: number;
}): string[] {
  return [
    'memory',
    `--memory-block-size=${p.blockSize}`,
    `--memory-total-size=${p.totalSize}`,
    `--memory-oper=${p.operation}`,
    `--memory-access-mode=${p.accessMode}`,
    `--threads=${p.threads}`,
    '--time=0',
    '--events=0',
    'run',
  ];
}

export interface SysbenchFileioResult {
  totalTimeSeconds: number;
  totalEvents: number;
  readMiBps: number;
  writtenMiBps: number;
  readsPerSecond: number;
  writesPerSecond: number;
  fsyncsPerSecond: number;
}

/** The numbers of a `sysbench fileio … run`. */
export function parseSysbenchFileio(text: string): SysbenchFileioResult {
  const need = requireKeys(text);
  return {
    totalTimeSeconds: need('General statistics.total time'),
    totalEvents: need('General statistics.total number of events'),
    readMiBps: need('Throughput.read, MiB/s'),
    writtenMiBps: need('Throughput.written, MiB/s'),
    readsPerSecond: need('File operations.reads/s'),
    writesPerSecond: need('File operations.writes/s'),
    fsyncsPerSecond: need('File operations.fsyncs/s'),
  };
}

/** Bytes written by `sysbench fileio prepare`, from "67108864 bytes written in 0.10 seconds (…)". */
export function parseSysbenchFileioPrepare(text: string): { bytes: number; seconds: number } {
  const m = /^(\d+) bytes written in ([\d.]+) seconds/m.exec(text);
  if (!m)
    throw new Error(
      `sysbench fileio prepare output has no "bytes written" line (output ends: ${text.trim().split('\n').slice(-3).join(' | ') || '(empty)'})`,
    );
  return { bytes: Number(m[1]), seconds: Number(m[2]) };
}

/** Arguments shared by prepare, run and cleanup, so that all three see the same file set. */
export function sysbenchFileioArgs(p: {
  fileNum: number;
  totalSize: string;
  blockSize: string;
  threads: number;
}): string[] {
  return [
    'fileio',
    `--file-num=${p.fileNum}`,
    `--file-total-size=${p.totalSize}`,
    `--file-block-size=${p.blockSize}`,
    `--threads=${p.threads}`,
  ];
}

/** A sysbench size ("8K", "1G", "512") in bytes; sysbench's suffixes are powers of 1024. */
export function sizeToBytes(size: string): number {
  if (!/^\d+[KMGT]?$/.test(size)) throw new Error(`not a size: "${size}"`);
  return sizeInBytes(size);
}
