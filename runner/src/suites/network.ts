import { connect, createServer, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { NetworkParameters } from '@runtime-bench/schemas';
import { errorMessage, InterruptedError } from '../errors.ts';
import { sleep } from '../util/exec.ts';
import { finish, part, withPod } from './kit.ts';
import { containerConfig, waitForExit, type LivePod } from './pods.ts';
import type { Benchmark, BenchmarkContext } from './types.ts';

const CHUNK = 1 << 20;
const DD_BLOCK = 65536;
/** The metric of each direction (engine.network.throughput measures the same through a published port). */
export const metricOf = { 'host-to-pod': 'host_to_pod', 'pod-to-host': 'pod_to_host' } as const;

const ipToInt = (ip: string): number => ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;

/**
 * The host's own address on the network the pod is attached to (the CNI bridge), from the host's
 * interfaces: the one whose subnet contains the pod IP. Null when none does, so traffic can only
 * ever go between the host and that pod over the bridge.
 */
export function hostAddressFor(
  podIp: string,
  interfaces: Record<string, { address: string; netmask: string; family: string | number }[] | undefined>,
): string | null {
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(podIp)) return null;
  const pod = ipToInt(podIp);
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.family !== 'IPv4' && a.family !== 4) continue;
      const mask = ipToInt(a.netmask);
      if (mask === 0xffffffff || a.address === podIp) continue;
      if ((ipToInt(a.address) & mask) === (pod & mask)) return a.address;
    }
  }
  return null;
}

/** MiB/s of `bytes` in `ms` milliseconds. */
export const mibPerSecond = (bytes: number, ms: number): number => bytes / 2 ** 20 / (ms / 1000);

export function deadlineFor(ctx: Pick<BenchmarkContext, 'callTimeoutSeconds'>, bytes: number): number {
  // A pessimistic 5 MiB/s bounds how long a transfer may take.
  return ctx.callTimeoutSeconds * 1000 + (bytes / (5 * 2 ** 20)) * 1000;
}

/** Runs `stop` when the run is interrupted, so a long transfer does not hold up the cleanup. */
export function onAbort(ctx: Pick<BenchmarkContext, 'signal'>, stop: () => void): void {
  if (ctx.signal.aborted) stop();
  else ctx.signal.addEventListener('abort', stop, { once: true });
}

async function connectWithRetry(
  ctx: BenchmarkContext,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Socket> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ctx.signal.aborted) throw new InterruptedError();
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host, port }, () => resolve(s));
        s.once('error', reject);
      });
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(
          `cannot connect to the listener in the pod at ${host}:${port}: ${errorMessage(error)}`,
          { cause: error },
        );
      await sleep(50);
    }
  }
}

/**
 * Writes `bytes` zero bytes to `socket` as fast as it drains, then ends it; the function returned
 * says how many are still unsent.
 */
export function streamZeros(socket: Socket, bytes: number): () => number {
  const chunk = Buffer.alloc(CHUNK);
  let left = bytes;
  const pump = (): void => {
    while (left > 0) {
      const n = Math.min(CHUNK, left);
      left -= n;
      if (!socket.write(n === CHUNK ? chunk : chunk.subarray(0, n))) {
        socket.once('drain', pump);
        return;
      }
    }
    socket.end();
  };
  pump();
  return () => left;
}

/** Host → pod: busybox nc listens in the pod and discards; the host streams `bytes` and times until the pod closes. */
async function hostToPod(
  ctx: BenchmarkContext,
  pod: LivePod,
  podIp: string,
  params: NetworkParameters,
): Promise<number> {
  // nc's stdin must stay open (a CRI container's stdin is at EOF, on which busybox nc hangs up):
  // a sleeping writer keeps it open; nc still exits when the host closes the connection.
  const container = containerConfig(ctx, 'nc-listen', [
    '/bin/sh',
    '-c',
    `sleep 36000 | nc -l -p ${params.port} > /dev/null`,
  ]);
  const id = await ctx.cri.createContainer(pod.id, container, pod.config);
  await ctx.cri.startContainer(id);
  const socket = await connectWithRetry(ctx, podIp, params.port, ctx.callTimeoutSeconds * 1000);
  const ms = await new Promise<number>((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const timer = setTimeout(
      () => {
        socket.destroy();
        reject(new Error('host → pod transfer timed out'));
      },
      deadlineFor(ctx, params.bytes),
    );
    onAbort(ctx, () => {
      clearTimeout(timer);
      socket.destroy();
      reject(new InterruptedError());
    });
    // Events come after this synchronous start, so the handlers below see every one.
    const unsent = streamZeros(socket, params.bytes);
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const left = unsent();
      if (left > 0) reject(new Error(`the pod closed the connection with ${left} bytes unsent`));
      else resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
    socket.resume();
  });
  await ctx.cri.stopContainer(id, 0);
  await ctx.cri.removeContainer(id);
  return mibPerSecond(params.bytes, ms);
}

/** Pod → host: the host listens on its bridge address; dd | nc in the pod streams to it. */
async function podToHost(
  ctx: BenchmarkContext,
  pod: LivePod,
  podIp: string,
  hostIp: string,
  params: NetworkParameters,
): Promise<number> {
  const blocks = Math.ceil(params.bytes / DD_BLOCK);
  const expected = blocks * DD_BLOCK;
  const server = createServer();
  const connections = new Set<Socket>();
  server.on('connection', (c) => {
    connections.add(c);
    c.on('close', () => connections.delete(c));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: hostIp, port: 0 }, () => resolve());
  });
  try {
    const port = (server.address() as { port: number }).port;
    const received = new Promise<{ bytes: number; ms: number }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('pod → host transfer timed out')),
        deadlineFor(ctx, expected),
      );
      onAbort(ctx, () => {
        clearTimeout(timer);
        reject(new InterruptedError());
      });
      server.on('connection', (c) => {
        // Only the pod this run created may talk to the listener.
        if (c.remoteAddress?.replace(/^::ffff:/, '') !== podIp) {
          c.destroy();
          return;
        }
        const t0 = process.hrtime.bigint();
        let bytes = 0;
        c.on('data', (d: Buffer) => (bytes += d.length));
        c.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
        c.on('end', () => {
          clearTimeout(timer);
          resolve({ bytes, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
        });
      });
    });
    const container = containerConfig(ctx, 'nc-send', [
      '/bin/sh',
      '-c',
      `dd if=/dev/zero bs=${DD_BLOCK} count=${blocks} 2>/dev/null | nc ${hostIp} ${port}`,
    ]);
    const id = await ctx.cri.createContainer(pod.id, container, pod.config);
    await ctx.cri.startContainer(id);
    const r = await received;
    if (r.bytes !== expected) throw new Error(`received ${r.bytes} of ${expected} bytes from the pod`);
    await waitForExit(ctx, id, ctx.callTimeoutSeconds * 1000);
    await ctx.cri.removeContainer(id);
    return mibPerSecond(r.bytes, r.ms);
  } finally {
    for (const c of connections) c.destroy();
    server.close();
  }
}

export const networkBenchmark: Benchmark<NetworkParameters> = {
  definition: {
    name: 'network.throughput',
    description:
      "A fixed amount of data (default 1 GiB) streamed over the CNI bridge between the host and a pod this run created, each way: host → pod into busybox nc listening in the pod (output discarded), and pod → host from dd | nc in the pod to a listener on the host's bridge address. Timed on the host from the connection to the end of the stream. No other address is ever contacted.",
    origin: ['runc-crun'],
    metrics: [
      { name: 'host_to_pod', unit: 'MiB/s', direction: 'higher', description: 'host → pod throughput' },
      { name: 'pod_to_host', unit: 'MiB/s', direction: 'higher', description: 'pod → host throughput' },
    ],
  },
  parameters: (config) => config.parameters['network.throughput'],
  iterate: (ctx, params) =>
    withPod(
      ctx,
      'network',
      params.directions.map((d) => metricOf[d]),
      async (pod, gathered) => {
        const podIp = (await ctx.cri.podSandboxStatus(pod.id)).ip;
        const hostIp = hostAddressFor(podIp, networkInterfaces());
        if (!hostIp)
          throw new Error(
            `the pod's address "${podIp || '(none)'}" is on no network of this host (is the CNI bridge up?)`,
          );
        const failures: (string | null)[] = [];
        for (const direction of params.directions) {
          const metric = metricOf[direction];
          failures.push(
            await part(gathered, [metric], direction, async () => {
              gathered.values[metric] =
                direction === 'host-to-pod'
                  ? await hostToPod(ctx, pod, podIp, params)
                  : await podToHost(ctx, pod, podIp, hostIp, params);
            }),
          );
        }
        return finish(gathered, failures);
      },
    ),
};
