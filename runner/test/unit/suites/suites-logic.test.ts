import { describe, expect, test } from 'vitest';
import { BenchmarkDefinitionSchema, BenchmarkParametersSchema, ConfigSchema } from '@runtime-bench/schemas';
import { parseDfAvailableKiB, requiredBytes } from '../../../src/suites/disk.ts';
import { rampQuotas } from '../../../src/suites/limits-cpu.ts';
import { bisectMinimum, PAGE } from '../../../src/suites/limits-memory.ts';
import { hostAddressFor, mibPerSecond } from '../../../src/suites/network.ts';
import { BENCHMARKS, selectBenchmarks } from '../../../src/suites/registry.ts';
import { pool } from '../../../src/suites/scalability.ts';
import { latencySummary, parseAdjtimexClock } from '../../../src/suites/startup.ts';

describe('registry', () => {
  test('every entry is a valid definition with unique metric names, and its parameters come from the config', () => {
    const config = ConfigSchema.parse({});
    const names = BENCHMARKS.map((b) => b.definition.name);
    expect(new Set(names).size).toBe(names.length);
    for (const b of BENCHMARKS) {
      expect(BenchmarkDefinitionSchema.parse(b.definition)).toEqual(b.definition);
      const metrics = b.definition.metrics.map((m) => m.name);
      expect(new Set(metrics).size, b.definition.name).toBe(metrics.length);
      expect(b.parameters(config), b.definition.name).toBeTypeOf('object');
    }
  });

  test('every family of the catalogue is present', () => {
    expect(BENCHMARKS.map((b) => b.definition.name)).toEqual([
      'operations.container.lifecycle',
      'performance.cpu',
      'performance.memory',
      'performance.disk',
      'startup.latency',
      'startup.first-output',
      'scalability.runtime.5',
      'scalability.runtime.10',
      'scalability.runtime.50',
      'limits.cpu.time',
      'limits.cpu.scaling',
      'limits.memory.min',
      'overhead.runtime',
      'network.throughput',
      'image.pull',
      'image.concurrent-pulls',
      'image.pod-start',
    ]);
  });

  test('prefixes select whole segments: "scalability.runtime" selects the three, "limits.cpu" two', () => {
    expect(selectBenchmarks(['scalability.runtime'], []).map((b) => b.definition.name)).toEqual([
      'scalability.runtime.5',
      'scalability.runtime.10',
      'scalability.runtime.50',
    ]);
    expect(selectBenchmarks(['limits.cpu'], []).map((b) => b.definition.name)).toEqual([
      'limits.cpu.time',
      'limits.cpu.scaling',
    ]);
    expect(
      selectBenchmarks(['scalability'], ['scalability.runtime.50']).map((b) => b.definition.name),
    ).toEqual(['scalability.runtime.5', 'scalability.runtime.10']);
  });

  test('a runsPerBenchmark key that matches no benchmark is an error naming the field', () => {
    expect(() =>
      selectBenchmarks(['operations'], [], BENCHMARKS, 'nightly.yaml', ['operations.lifecycle']),
    ).toThrow('nightly.yaml: runsPerBenchmark: "operations.lifecycle" matches no benchmark');
    expect(
      selectBenchmarks(['operations'], [], BENCHMARKS, 'nightly.yaml', ['operations.container.lifecycle'])
        .length,
    ).toBeGreaterThan(0);
  });

  test('an old config (no new parameter keys, no images.large) still parses, with defaults', () => {
    const config = ConfigSchema.parse({
      parameters: { 'performance.cpu': { maxPrime: 100 } },
      images: { pause: 'p', bench: 'b' },
    });
    expect(config.images.large).toBe('localhost/runtime-bench/large:latest');
    expect(config.parameters['startup.latency'].count).toBe(1000);
    expect(Object.keys(BenchmarkParametersSchema.shape)).toContain('network.throughput');
  });

  test('parameter typos are named', () => {
    const r = ConfigSchema.safeParse({ parameters: { 'performance.memory': { blockSize: '8 KB' } } });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/blockSize/);
  });
});

describe('limits.memory.min bisection', () => {
  const threshold =
    (min: number) =>
    async (bytes: number): Promise<string | null> =>
      bytes >= min ? null : `OOM at ${bytes}`;

  test.each([160 * 1024, 2 * 1024 * 1024, 8 * 1024 * 1024 + 123, 32 * 1024 * 1024])(
    'finds a limit within the precision above the true minimum %d',
    async (min) => {
      const r = await bisectMinimum(
        { lower: 0, upper: 64 * 1024 * 1024, precision: 16 * 1024 },
        threshold(min),
      );
      expect(r.bytes).toBeGreaterThanOrEqual(min);
      expect(r.failedBytes).toBeLessThan(min);
      expect(r.bytes - r.failedBytes).toBeLessThanOrEqual(16 * 1024);
      expect(r.bytes % PAGE).toBe(0);
      expect(r.failedWith).toMatch(/OOM/);
      // one check of the ceiling, then log2(64 MiB / 16 KiB) = 12 halvings
      expect(r.attempts).toBe(13);
    },
  );

  test('a ceiling that fails is an error naming it', async () => {
    await expect(
      bisectMinimum({ lower: 0, upper: 1 << 20, precision: 4096 }, threshold(2 << 20)),
    ).rejects.toThrow(/upper bound of 1048576 bytes: OOM/);
  });

  test('a floor that already works is the answer', async () => {
    const r = await bisectMinimum({ lower: 1 << 20, upper: 64 << 20, precision: 4096 }, threshold(4096));
    expect(r).toEqual({ bytes: 1 << 20, failedBytes: 0, attempts: 2, failedWith: null });
  });

  test('a limit of 0 (no limit in CRI) is never tried', async () => {
    const tried: number[] = [];
    await bisectMinimum(
      { lower: 0, upper: 1 << 20, precision: 4096 },
      async (b) => (tried.push(b), b >= 8192 ? null : 'x'),
    );
    expect(tried.every((b) => b > 0)).toBe(true);
  });
});

test('the CPU quota ramp rises in equal steps to the end value', () => {
  expect(rampQuotas({ cpuPeriodMicros: 100000, startPercent: 50, endPercent: 100, steps: 5 })).toEqual([
    60000, 70000, 80000, 90000, 100000,
  ]);
  expect(rampQuotas({ cpuPeriodMicros: 100000, startPercent: 50, endPercent: 100, steps: 1 })).toEqual([
    100000,
  ]);
});

describe('pool', () => {
  test('never more than the limit in flight; results in order; failures kept', async () => {
    let inFlight = 0;
    let most = 0;
    const r = await pool([1, 2, 3, 4, 5, 6, 7], 3, async (x) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((res) => setTimeout(res, 5 * (8 - x)));
      inFlight--;
      if (x === 4) throw new Error('four');
      return x * 10;
    });
    expect(most).toBe(3);
    expect(r.map((x) => (x.status === 'fulfilled' ? x.value : (x.reason as Error).message))).toEqual([
      10,
      20,
      30,
      'four',
      50,
      60,
      70,
    ]);
  });

  test('limit 1 is serial', async () => {
    const order: string[] = [];
    await pool(['a', 'b'], 1, async (x) => {
      order.push(`start ${x}`);
      await new Promise((res) => setTimeout(res, 2));
      order.push(`end ${x}`);
    });
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});

describe('startup', () => {
  test('per-repetition latency summary (type-7 quantiles)', () => {
    const s = latencySummary([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(s).toEqual({
      latency_min: 1,
      latency_mean: 5.5,
      latency_median: 5.5,
      latency_p90: 9.1,
      latency_p99: 9.91,
      latency_max: 10,
    });
    expect(latencySummary([])).toEqual({});
  });

  test('the clock a container printed with busybox adjtimex', () => {
    // Real output of busybox 1.35 `adjtimex` on this kind of host.
    const text = `    mode:         0
-o  offset:       0 us
-f  freq.adjust:  0 (65536 = 1ppm)
    maxerror:     16000000
    esterror:     16000000
    status:       64 (UNSYNC)
-p  timeconstant: 2
    precision:    1 us
    tolerance:    32768000
-t  tick:         10000 us
    time.tv_sec:  1795251094
    time.tv_usec: 188250
    return value: 5 (clock not synchronized)
`;
    expect(parseAdjtimexClock(text)).toBe(1795251094188250000n);
    expect(() => parseAdjtimexClock('adjtimex: Operation not permitted')).toThrow(
      /no clock reading.*not permitted/,
    );
  });
});

describe('disk', () => {
  test('free space from df -Pk, also when the device name wraps the line', () => {
    expect(
      parseDfAvailableKiB(
        'Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/vda         264212084 18957656  76543608      20% /\n',
      ),
    ).toBe(76543608);
    expect(
      parseDfAvailableKiB(
        'Filesystem 1024-blocks Used Available Capacity Mounted on\noverlay-with-a-very-long-name\n 100 40 60 40% /\n',
      ),
    ).toBe(60);
    expect(() => parseDfAvailableKiB('df: /data: No such file or directory')).toThrow(/free space/);
  });

  test('needed space is the file set plus the spare room', () => {
    expect(requiredBytes({ totalSize: '1G', spareMiB: 64 })).toBe(2 ** 30 + 64 * 2 ** 20);
  });
});

describe('network', () => {
  const ifaces = {
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4' }],
    eth0: [{ address: '172.16.0.2', netmask: '255.255.255.0', family: 'IPv4' }],
    'rb-suite': [
      { address: '10.233.75.1', netmask: '255.255.255.0', family: 'IPv4' },
      { address: 'fe80::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6' },
    ],
  };

  test("the host address on the pod's bridge, and nothing for an address on no host network", () => {
    expect(hostAddressFor('10.233.75.7', ifaces)).toBe('10.233.75.1');
    expect(hostAddressFor('10.9.9.9', ifaces)).toBeNull();
    expect(hostAddressFor('', ifaces)).toBeNull();
    expect(hostAddressFor('fd00::5', ifaces)).toBeNull();
  });

  test('MiB/s', () => {
    expect(mibPerSecond(2 ** 30, 2000)).toBe(512);
  });
});
