// The harness's own cost per timed CRI call, on both transports, in one run against the local
// stack "default" (runtime-bench stack up). Baseline: an in-process gRPC Version round trip.
//   node runner/bench/overhead.ts [--stack NAME] [--calls N]
// Prints a table; the target is ≤ 1 ms per call on grpc.
import { parseArgs } from 'node:util';
import { createCriClient } from '../src/cri/client.ts';
import type { CriClient } from '../src/cri/types.ts';
import { which } from '../src/util/path-search.ts';
import { readStackState, stackStateDir } from '../src/stack/state.ts';
import { summarize } from '../src/stats/descriptive.ts';
import { formatNumber, terminalTable } from '../src/format/index.ts';

const { values } = parseArgs({
  options: { stack: { type: 'string', default: 'default' }, calls: { type: 'string', default: '200' } },
});
const calls = Number(values.calls);
const state = await readStackState(stackStateDir(values.stack!));
if (!state) {
  console.error(`stack "${values.stack}" is not up: run \`runtime-bench stack up\` first`);
  process.exit(2);
}

const nowNs = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

async function timeCalls(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** ms between the runtime stamping the container as started and the client holding the reply. */
async function replyGap(client: CriClient, n: number): Promise<number[]> {
  const gaps: number[] = [];
  for (let i = 0; i < n; i++) {
    const uid = `overhead-${process.pid}-${i}-${client.transport}`;
    const pod = {
      metadata: { name: uid, uid, namespace: 'runtime-bench', attempt: 0 },
      logDirectory: `/tmp/${uid}`,
      labels: { 'runtime-bench.run-id': 'overhead-bench' },
      linux: { securityContext: { namespaceOptions: { pid: 1 } } },
    };
    const podId = await client.runPodSandbox(pod, state!.handlers[0]!.name);
    try {
      const id = await client.createContainer(
        podId,
        {
          metadata: { name: 'c' },
          image: { image: state!.images.bench },
          command: ['/bin/sleep', '60'],
          logPath: 'c.log',
        },
        pod,
      );
      await client.startContainer(id);
      const replied = nowNs();
      const status = await client.containerStatus(id);
      gaps.push(Number(replied - BigInt(status.startedAt)) / 1e6);
    } finally {
      await client.stopPodSandbox(podId);
      await client.removePodSandbox(podId);
    }
  }
  return gaps;
}

const grpc = createCriClient('grpc', state.socket);
await grpc.version(); // connect outside the measurement
const rows: { transport: string; what: string; samples: number[] }[] = [];
rows.push({
  transport: 'grpc',
  what: 'Version round trip',
  samples: await timeCalls(calls, () => grpc.version()),
});
rows.push({
  transport: 'grpc',
  what: 'ListPodSandbox round trip',
  samples: await timeCalls(calls, () => grpc.listPodSandbox()),
});
rows.push({ transport: 'grpc', what: 'StartContainer reply gap', samples: await replyGap(grpc, 10) });
const crictlPath = await which('crictl');
if (crictlPath) {
  const crictl = createCriClient('crictl', state.socket, { crictl: crictlPath });
  const n = Math.min(calls, 30);
  rows.push({
    transport: 'crictl',
    what: 'Version round trip',
    samples: await timeCalls(n, () => crictl.version()),
  });
  rows.push({
    transport: 'crictl',
    what: 'ListPodSandbox round trip',
    samples: await timeCalls(n, () => crictl.listPodSandbox()),
  });
  rows.push({ transport: 'crictl', what: 'StartContainer reply gap', samples: await replyGap(crictl, 5) });
  crictl.close();
} else {
  console.error('crictl is not on PATH: the crictl rows are left out');
}
grpc.close();

const baseline = summarize(rows[0]!.samples).median;
console.log(
  terminalTable(
    ['transport', 'what', 'n', 'median ms', 'p90 ms', '× baseline'],
    rows.map((r) => {
      const s = summarize(r.samples);
      return [
        r.transport,
        r.what,
        String(s.n),
        formatNumber(s.median),
        formatNumber(s.p90),
        formatNumber(s.median / baseline),
      ];
    }),
  ),
);
const grpcCost = summarize(rows[0]!.samples).median;
console.log(
  `\ngrpc harness cost per call (Version round trip median): ${formatNumber(grpcCost)} ms — target ≤ 1 ms: ${grpcCost <= 1 ? 'met' : 'NOT met'}`,
);
