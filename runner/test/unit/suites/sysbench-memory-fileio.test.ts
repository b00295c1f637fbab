import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  parseSysbenchFileio,
  parseSysbenchFileioPrepare,
  parseSysbenchMemory,
  sizeToBytes,
  sysbenchFileioArgs,
  sysbenchMemoryArgs,
} from '../../../src/sysbench/parse.ts';
import { memoryBenchmark, memoryMetricValues } from '../../../src/suites/memory.ts';

const fixture = (name: string): string =>
  readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'sysbench', name), 'utf8');

describe('sysbench memory report', () => {
  test('fixed total size: time, events, throughput line, latencies', () => {
    expect(parseSysbenchMemory(fixture('sysbench-1.0.20-memory.txt'))).toEqual({
      totalTimeSeconds: 0.0438,
      totalEvents: 131072,
      mibTransferred: 1024,
      mibPerSecond: 22800.25,
      latencyMinMs: 0,
      latencyAvgMs: 0,
      latencyMaxMs: 0.04,
      latencySumMs: 26.55,
    });
  });

  test('the mean block time comes from the latency sum, below the printed 0.00 ms; no min', () => {
    const values = memoryMetricValues(fixture('sysbench-1.0.20-memory.txt'));
    // 26.55 ms over 131072 blocks, by hand: 0.000202560... ms (203 ns)
    expect(values.latency_avg).toBeCloseTo(0.00020256, 8);
    expect(values).not.toHaveProperty('latency_min');
    expect(memoryBenchmark.definition.metrics.map((m) => m.name)).toEqual(Object.keys(values));
  });

  test('1024 MiB in 8 KiB blocks is 131072 events: the fields belong together', () => {
    const r = parseSysbenchMemory(fixture('sysbench-1.0.20-memory.txt'));
    expect((r.totalEvents * 8) / 1024).toBe(r.mibTransferred);
  });

  test('a report without the transfer line names it', () => {
    const text = fixture('sysbench-1.0.20-memory.txt').replace(/^.*MiB transferred.*$/m, '');
    expect(() => parseSysbenchMemory(text)).toThrow(/MiB transferred/);
  });

  test('arguments: a fixed total size and no time bound', () => {
    expect(
      sysbenchMemoryArgs({
        blockSize: '8K',
        totalSize: '8G',
        operation: 'write',
        accessMode: 'seq',
        threads: 2,
      }),
    ).toEqual([
      'memory',
      '--memory-block-size=8K',
      '--memory-total-size=8G',
      '--memory-oper=write',
      '--memory-access-mode=seq',
      '--threads=2',
      '--time=0',
      '--events=0',
      'run',
    ]);
  });
});

describe('sysbench fileio report', () => {
  test('sequential read: read throughput, nothing written', () => {
    const r = parseSysbenchFileio(fixture('sysbench-1.0.20-fileio-seqrd.txt'));
    expect(r).toEqual({
      totalTimeSeconds: 0.0085,
      totalEvents: 2000,
      readMiBps: 3257.64,
      writtenMiBps: 0,
      readsPerSecond: 208489.07,
      writesPerSecond: 0,
      fsyncsPerSecond: 0,
    });
  });

  test('random write: written throughput and fsyncs', () => {
    const r = parseSysbenchFileio(fixture('sysbench-1.0.20-fileio-rndwr.txt'));
    expect(r.writtenMiBps).toBe(456.79);
    expect(r.readMiBps).toBe(0);
    expect(r.fsyncsPerSecond).toBe(1215.57);
    // writes/s × 16 KiB ≈ MiB/s
    expect((r.writesPerSecond * 16) / 1024).toBeCloseTo(r.writtenMiBps, 0);
  });

  test('prepare: bytes written', () => {
    expect(parseSysbenchFileioPrepare(fixture('sysbench-1.0.20-fileio-prepare.txt'))).toEqual({
      bytes: 67108864,
      seconds: 0.1,
    });
    expect(() => parseSysbenchFileioPrepare('FATAL: Cannot open file')).toThrow(/bytes written.*FATAL/);
  });

  test('a run that died names the missing field', () => {
    expect(() => parseSysbenchFileio('FATAL: Too large position discovered in request!\n')).toThrow(
      /Throughput|total time/,
    );
  });

  test('shared arguments of prepare, run and cleanup', () => {
    expect(sysbenchFileioArgs({ fileNum: 16, totalSize: '1G', blockSize: '16K', threads: 1 })).toEqual([
      'fileio',
      '--file-num=16',
      '--file-total-size=1G',
      '--file-block-size=16K',
      '--threads=1',
    ]);
  });
});

test.each([
  ['512', 512],
  ['8K', 8192],
  ['1G', 1073741824],
  ['2T', 2 * 1024 ** 4],
])('size %s is %d bytes', (size, bytes) => {
  expect(sizeToBytes(size)).toBe(bytes);
});
