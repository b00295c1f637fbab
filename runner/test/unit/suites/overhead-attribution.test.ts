import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, test } from 'vitest';
import { readCounters } from '../../../src/suites/overhead/proc.ts';
import {
  cpuBetween,
  parseSchedstat,
  findRuntimeRoots,
  overheadValues,
  parseProcIo,
  parseProcStat,
  parseProcStatus,
  runtimeTree,
  sumCounters,
  type ProcEntry,
} from '../../../src/suites/overhead/attribution.ts';

describe('/proc parsers', () => {
  test('stat: fields after a comm with spaces and parentheses', () => {
    // A real line (cat reading its own stat), with the comm replaced by a hostile one.
    const line =
      '7338 (a b) (c)) R 7336 7336 32094 0 -1 4194304 101 0 0 0 12 34 5 6 20 0 1 0 122607 3133440 393 18446744073709551615 94152387563520 94152387583401 140729154429104 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0';
    expect(parseProcStat(line)).toEqual({
      pid: 7338,
      comm: 'a b) (c)',
      state: 'R',
      ppid: 7336,
      ownTicks: 46,
      childTicks: 11,
      startTicks: 122607,
    });
  });

  test('status: VmHWM in bytes, context switches', () => {
    const text =
      'Name:\tcontainerd-shim\nVmHWM:\t    1964 kB\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n';
    expect(parseProcStatus(text)).toEqual({ vmHwmBytes: 1964 * 1024, voluntary: 12, nonvoluntary: 3 });
    // A kernel thread has no VmHWM line: zero, not an error.
    expect(parseProcStatus('Name:\tkthreadd\n').vmHwmBytes).toBe(0);
  });

  test('io: write_bytes and syscw', () => {
    const text =
      'rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 58\nread_bytes: 0\nwrite_bytes: 45056\ncancelled_write_bytes: 0\n';
    expect(parseProcIo(text)).toEqual({ writeBytes: 45056, syscw: 58 });
  });
});

const HOST_NS = 'pid:[4026531836]';
const proc = (
  pid: number,
  ppid: number,
  cmd: string,
  pidNs = HOST_NS,
  comm = cmd.split(' ')[0]!.split('/').pop()!.slice(0, 15),
): ProcEntry => ({
  pid,
  ppid,
  comm,
  cmdline: cmd.split(' '),
  pidNs,
});
const SOCKET = '/var/lib/runtime-bench/stacks/suite/containerd.sock';

describe('attribution by PID tree', () => {
  const runcPod: ProcEntry[] = [
    proc(1, 0, '/sbin/init'),
    proc(100, 1, `/usr/bin/containerd --config /x/config.toml`),
    proc(200, 1, `/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id POD1 -address ${SOCKET}`),
    proc(201, 200, '/bin/pause -P', 'pid:[1001]', 'pause'),
    proc(202, 200, '/bin/sleep 3600', 'pid:[1002]', 'sleep'),
    proc(203, 200, '/usr/sbin/runc --root /run/containerd/runc/k8s.io create', HOST_NS),
    // another pod's shim and another stack's shim with the same pod id
    proc(300, 1, `/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id POD2 -address ${SOCKET}`),
    proc(
      400,
      1,
      '/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id POD1 -address /run/containerd/containerd.sock',
    ),
  ];

  test('the shim of the pod on our socket is the root; another socket or pod is not', () => {
    expect(findRuntimeRoots(runcPod, 'POD1', `unix://${SOCKET}`)).toEqual([200]);
    expect(findRuntimeRoots(runcPod, 'POD2', SOCKET)).toEqual([300]);
    expect(findRuntimeRoots(runcPod, 'POD9', SOCKET)).toEqual([]);
  });

  test('runc helpers count, pause and the container process (own PID namespaces) do not', () => {
    expect(runtimeTree(runcPod, [200]).sort()).toEqual([200, 203]);
  });

  test('runsc: sentry and gofer in their own namespaces count, and the stubs below the sentry', () => {
    const runsc: ProcEntry[] = [
      proc(500, 1, `/usr/local/bin/containerd-shim-runsc-v1 -namespace k8s.io -id PODR -address ${SOCKET}`),
      proc(501, 500, 'runsc-gofer --root=/x gofer', 'pid:[2001]', 'exe'),
      proc(502, 500, 'runsc-sandbox --root=/x boot', 'pid:[2002]', 'exe'),
      proc(503, 502, '', 'pid:[2002]', 'exe'),
    ];
    expect(runtimeTree(runsc, findRuntimeRoots(runsc, 'PODR', SOCKET)).sort()).toEqual([500, 501, 502, 503]);
  });

  test('gVisor shims take no -id: found by the task directory their runsc children name (real ps lines, shortened)', () => {
    const task = (id: string): string => `/s/state/io.containerd.runtime.v2.task/k8s.io/${id}/log.json`;
    const shim = `/opt/gvisor/containerd-shim-runsc-v1 -namespace k8s.io -address ${SOCKET} -publish-binary /usr/bin/containerd`;
    const procs: ProcEntry[] = [
      proc(700, 1, shim),
      proc(701, 700, `runsc-gofer --log=${task('PODG')} --root=/s/runsc/k8s.io gofer`, 'pid:[4001]', 'exe'),
      proc(702, 700, `runsc-sandbox --log=${task('PODG')} --root=/s/runsc/k8s.io boot`, 'pid:[4002]', 'exe'),
      proc(710, 1, shim),
      proc(711, 710, `/opt/gvisor/runsc --root=/s/runsc/k8s.io --log=${task('CTRG')} wait CTRG`),
      proc(720, 1, shim),
      proc(721, 720, `runsc-sandbox --log=${task('OTHER')} boot`, 'pid:[4003]', 'exe'),
      proc(730, 1, shim.replace(SOCKET, '/other/containerd.sock')),
      proc(731, 730, `runsc-sandbox --log=${task('PODG')} boot`, 'pid:[4004]', 'exe'),
    ];
    expect(findRuntimeRoots(procs, 'PODG', SOCKET, ['CTRG'])).toEqual([700, 710]);
    expect(findRuntimeRoots(procs, 'PODG', SOCKET)).toEqual([700]);
  });

  test('conmon (CRI-O) is found by the container id it names', () => {
    const crio = [
      proc(600, 1, '/usr/bin/conmon -b /x -c CID1 --cid CID1 -n k8s_x'),
      proc(601, 600, '/bin/sleep 3600', 'pid:[3001]', 'sleep'),
    ];
    expect(findRuntimeRoots(crio, 'PODC', undefined, ['CID1'])).toEqual([600]);
    expect(runtimeTree(crio, [600])).toEqual([600]);
  });
});

describe('overhead metrics', () => {
  const zero = { cpuNs: 0, reapedNs: 0, peakRssBytes: 0, writeBytes: 0, writeSyscalls: 0, ctxSwitches: 0 };

  test('sum of counters', () => {
    expect(sumCounters([])).toEqual(zero);
    expect(
      sumCounters([
        { ...zero, cpuNs: 2, ctxSwitches: 5 },
        { ...zero, cpuNs: 3, peakRssBytes: 10 },
      ]),
    ).toEqual({ ...zero, cpuNs: 5, ctxSwitches: 5, peakRssBytes: 10 });
  });

  test('start deltas, totals at the end, nanoseconds in ms', () => {
    const v = overheadValues({
      beforeStart: {
        counters: {
          cpuNs: 1_234_567,
          reapedNs: 0,
          peakRssBytes: 100,
          writeBytes: 4096,
          writeSyscalls: 10,
          ctxSwitches: 50,
        },
        shimCgroup: null,
      },
      afterStart: {
        counters: {
          cpuNs: 3_500_000,
          reapedNs: 0,
          peakRssBytes: 200,
          writeBytes: 4096 + 45056,
          writeSyscalls: 68,
          ctxSwitches: 90,
        },
        shimCgroup: null,
      },
      end: {
        cpuNs: 4_000_001,
        reapedNs: 0,
        peakRssBytes: 300,
        writeBytes: 0,
        writeSyscalls: 0,
        ctxSwitches: 120,
      },
      startSeconds: 0.08,
      processes: 1,
    });
    expect(v).toEqual({
      cpu_time_start: 2.265433,
      cpu_time_total: 4.000001,
      peak_rss: 300,
      write_bytes_start: 45056,
      write_ops_start: 58,
      write_iops_start: 58 / 0.08,
      ctx_switches_total: 120,
      processes: 1,
    });
  });

  test('a helper that exited between readings never makes a delta negative', () => {
    const v = overheadValues({
      beforeStart: { counters: { ...zero, cpuNs: 5e6, writeSyscalls: 9 }, shimCgroup: null },
      afterStart: { counters: zero, shimCgroup: null },
      end: zero,
      startSeconds: 0,
      processes: 0,
    });
    expect(v.cpu_time_start).toBe(0);
    expect(v.write_ops_start).toBe(0);
    expect(v.write_iops_start).toBe(0);
  });
});

describe('cpu_time_start from the shim cgroup', () => {
  const zero = { cpuNs: 0, reapedNs: 0, peakRssBytes: 0, writeBytes: 0, writeSyscalls: 0, ctxSwitches: 0 };
  const cg = '/runtime-bench/s/shim-runc';

  test("usage delta minus other shims' own CPU, plus the tree's processes outside the cgroup", () => {
    // Between the readings: the pod's shim ran 1.5 ms, its runc create + start 12.345678 ms (exited),
    // another pod's idle shim 0.2 ms (in the usage and in its schedstat), and a process of the
    // tree outside the cgroup 0.1 ms. The usage grew by 1.5 + 12.345678 + 0.2 = 14.045678 ms.
    const before = {
      counters: { ...zero, cpuNs: 90e6 },
      shimCgroup: {
        path: cg,
        usageNs: 500_000_000,
        otherPids: [7, 4242],
        othersNs: 40_000_000,
        outsideNs: 3_000_000,
      },
    };
    const after = {
      counters: { ...zero, cpuNs: 120e6 },
      shimCgroup: {
        path: cg,
        usageNs: 514_045_678,
        otherPids: [7, 4242],
        othersNs: 40_200_000,
        outsideNs: 3_100_000,
      },
    };
    const r = cpuBetween(before, after);
    expect(r.source).toBe('shim-cgroup');
    expect(r.ns).toBe(1_500_000 + 12_345_678 + 100_000);
  });

  test('ticks when the shim is in no shim cgroup, or not in the same one at both readings', () => {
    const ticks = (cpuNs: number) => ({ counters: { ...zero, cpuNs }, shimCgroup: null });
    expect(cpuBetween(ticks(10e6), ticks(40e6))).toEqual({ ns: 30e6, source: 'ticks' });
    const inCg = (path: string, usageNs: number, otherPids: number[] = []) => ({
      counters: { ...zero, cpuNs: 0 },
      shimCgroup: { path, usageNs, otherPids, othersNs: 0, outsideNs: 0 },
    });
    expect(cpuBetween(ticks(0), inCg(cg, 5))).toEqual({ ns: 0, source: 'ticks' });
    expect(cpuBetween(inCg(cg, 5), inCg('/runtime-bench/s/shim-crun', 9))).toEqual({
      ns: 0,
      source: 'ticks',
    });
    // Another pod's shim exited (or joined) between the readings: its CPU would not cancel out.
    expect(cpuBetween(inCg(cg, 5, [7, 9]), inCg(cg, 9, [7]))).toEqual({ ns: 0, source: 'ticks' });
    expect(cpuBetween(inCg(cg, 5, [7]), inCg(cg, 9, [7, 9]))).toEqual({ ns: 0, source: 'ticks' });
    expect(cpuBetween(inCg(cg, 5, [7]), inCg(cg, 9, [7]))).toEqual({ ns: 4, source: 'shim-cgroup' });
  });

  test('overheadValues takes cpu_time_start from it, in ms', () => {
    const at = (usageNs: number, cpuNs: number) => ({
      counters: { ...zero, cpuNs },
      shimCgroup: { path: cg, usageNs, otherPids: [], othersNs: 0, outsideNs: 0 },
    });
    const v = overheadValues({
      beforeStart: at(1_000_000_000, 50e6),
      afterStart: at(1_013_370_001, 80e6),
      end: { ...zero, cpuNs: 95e6 },
      startSeconds: 0.1,
      processes: 1,
    });
    expect(v.cpu_time_start).toBe(13.370001);
    expect(v.cpu_time_total).toBe(95);
  });
});

describe('CPU time below the 10 ms tick', () => {
  test('schedstat: the first field, in ns', () => {
    expect(parseSchedstat('123456789 70301 12\n')).toBe(123456789);
    expect(() => parseSchedstat('')).toThrow(/not a schedstat line/);
  });

  test(
    "a real process's CPU time from /proc agrees with its own getrusage to well under a tick",
    { timeout: 60_000 },
    async () => {
      // The child burns about 37 ms of CPU, prints what the kernel tells it (all threads, µs),
      // is read, then prints it again when asked: the reading lies between its two reports.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `const t = process.hrtime.bigint(); let x = 0; while (process.hrtime.bigint() - t < 37_000_000n) x += Math.sqrt(x + 1);
           const used = () => { const u = process.cpuUsage(); return u.user + u.system; };
           console.log(used()); process.stdin.once('data', () => { console.log(used()); process.exit(0); });`,
        ],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      );
      try {
        const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
        const before = Number((await lines.next()).value) / 1000;
        const readMs = (await readCounters(child.pid!))!.cpuNs / 1e6;
        child.stdin.write('\n');
        const after = Number((await lines.next()).value) / 1000;
        expect(readMs).toBeGreaterThanOrEqual(before - 0.5);
        expect(readMs).toBeLessThanOrEqual(after + 0.5);
      } finally {
        child.kill();
      }
    },
  );
});
