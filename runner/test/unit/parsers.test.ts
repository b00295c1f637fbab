import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseCriLog, stdoutOf } from '../../src/cri/log.ts';
import { parseSysbenchCpu, parseSysbenchReport, sysbenchCpuArgs } from '../../src/sysbench/parse.ts';

const fixture = (...p: string[]): string =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', ...p), 'utf8');

describe('sysbench cpu report', () => {
  test('fixed-event run: total time, events, latency', () => {
    const r = parseSysbenchCpu(fixture('sysbench', 'sysbench-1.0.20-cpu-events.txt'));
    expect(r).toEqual({
      eventsPerSecond: 27701.32,
      totalTimeSeconds: 0.0168,
      totalEvents: 500,
      latencyAvgMs: 0.03,
    });
  });

  test('fixed-time run reports events per second', () => {
    const text = fixture('sysbench', 'sysbench-1.0.20-cpu-time.txt');
    const r = parseSysbenchCpu(text);
    expect(r.eventsPerSecond).toBeGreaterThan(0);
    expect(r.totalTimeSeconds).toBeGreaterThan(0.9);
    // events/s × time ≈ events: the fields belong together.
    expect(r.eventsPerSecond * r.totalTimeSeconds).toBeCloseTo(r.totalEvents, -2);
  });

  test('every section key is parsed', () => {
    const v = parseSysbenchReport(fixture('sysbench', 'sysbench-1.0.20-cpu-events.txt'));
    expect(v.get('Latency (ms).95th percentile')).toBe(0.03);
    expect(v.get('Latency (ms).sum')).toBe(16.43);
  });

  test('a truncated report names what is missing', () => {
    expect(() => parseSysbenchCpu('sysbench 1.0.20\nFATAL: out of memory\n')).toThrow(
      /"CPU speed.events per second".*FATAL: out of memory/,
    );
  });

  test('the two modes bound sysbench by time or by events, never both', () => {
    const p = { maxPrime: 20000, threads: 2, timeSeconds: 10, events: 5000 };
    expect(sysbenchCpuArgs(p, 'time')).toEqual([
      'cpu',
      '--cpu-max-prime=20000',
      '--threads=2',
      '--time=10',
      '--events=0',
      'run',
    ]);
    expect(sysbenchCpuArgs(p, 'events')).toEqual([
      'cpu',
      '--cpu-max-prime=20000',
      '--threads=2',
      '--time=0',
      '--events=5000',
      'run',
    ]);
  });
});

describe('CRI log files', () => {
  test('a real containerd log yields the sysbench report', () => {
    const text = fixture('cri-log', 'containerd-1.6.20-sysbench-cpu.log');
    const out = stdoutOf(text);
    expect(out.split('\n')[0]).toBe('sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)');
    expect(parseSysbenchCpu(out).totalTimeSeconds).toBeGreaterThan(0.9);
  });

  test('partial records are joined into one line; streams are kept apart', () => {
    const text = [
      '2026-01-01T00:00:00.1Z stdout P hello ',
      '2026-01-01T00:00:00.2Z stdout F world',
      '2026-01-01T00:00:00.3Z stderr F oops',
      '2026-01-01T00:00:00.4Z stdout F ',
      'garbage',
    ].join('\n');
    expect(parseCriLog(text)).toEqual([
      { time: '2026-01-01T00:00:00.1Z', stream: 'stdout', line: 'hello world' },
      { time: '2026-01-01T00:00:00.3Z', stream: 'stderr', line: 'oops' },
      { time: '2026-01-01T00:00:00.4Z', stream: 'stdout', line: '' },
    ]);
    expect(stdoutOf(text)).toBe('hello world\n');
  });
});
