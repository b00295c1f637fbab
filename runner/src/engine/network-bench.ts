// engine.network.throughput: the runc-crun study's host → container transfer through a published
// port (1 GB into nc), and the way back, through each engine's own port publishing — Docker's
// docker-proxy, Podman's and nerdctl's CNI portmap — on the engine's private bridge network. The
// port is published on 127.0.0.1 only: no other address ever receives the test traffic.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import type { NetworkParameters } from '@runtime-bench/schemas';
import { finish, part, type Gathered } from '../suites/kit.ts';
import {
  deadlineFor,
  metricOf,
  mibPerSecond,
  networkBenchmark,
  onAbort,
  streamZeros,
} from '../suites/network.ts';
import { sleep, type ExecResult } from '../util/exec.ts';
import type { EngineBenchmark, EngineContext } from './engine-benchmark.ts';
import { InterruptedError } from '../errors.ts';

const DD_BLOCK = 65536;
const tail = (text: string): string => text.trim().split('\n').slice(-2).join(' | ');

/** Does /proc/<pid>/net/tcp (or tcp6) text show a socket listening on `port`? */
export function listensOn(procNetTcp: string, port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return procNetTcp
    .split('\n')
    .slice(1)
    .some((line) => {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; st 0A is TCP_LISTEN.
      return f[1]?.split(':')[1]?.toUpperCase() === hex && f[3] === '0A';
    });
}

/** A port on 127.0.0.1 that nothing listens on now (the engine binds it a moment later). */
async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Waits until the container's own network namespace has nc listening (seen from the host in
 * /proc/<its pid>/net/tcp): only then is a connection to the published port one to the container,
 * not to a proxy that has nowhere to forward it yet.
 */
async function waitListening(
  ctx: EngineContext,
  name: string,
  port: number,
  exited: () => ExecResult | null,
): Promise<void> {
  const deadline = Date.now() + ctx.callTimeoutSeconds * 1000;
  for (;;) {
    if (ctx.signal.aborted) throw new InterruptedError();
    const done = exited();
    if (done)
      throw new Error(`the container exited with ${done.exitCode} before listening: ${tail(done.stderr)}`);
    const pid = await ctx.pidOf(name);
    if (pid !== null) {
      const tables = await Promise.all(
        ['tcp', 'tcp6'].map((t) => readFile(`/proc/${pid}/net/${t}`, 'utf8').catch(() => '')),
      );
      if (tables.some((t) => listensOn(t, port))) return;
    }
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} in container ${name}`);
    await sleep(50);
  }
}

/**
 * Runs `command` with params.port published on 127.0.0.1, waits for its listener, then `transfer`
 * to the host port; the container must exit 0 after it. Whatever fails, the container is removed.
 */
async function withListener(
  ctx: EngineContext,
  params: NetworkParameters,
  command: string[],
  transfer: (hostPort: number) => Promise<Transfer>,
): Promise<Transfer> {
  const hostPort = await freeLoopbackPort();
  const name = `rb-net-${randomBytes(6).toString('hex')}`;
  let result: ExecResult | null = null;
  let failed: unknown = null;
  const run = ctx
    .run(ctx.images.bench, command, undefined, {
      name,
      hostPort,
      containerPort: params.port,
      timeoutMs: deadlineFor(ctx, params.bytes) + ctx.callTimeoutSeconds * 1000,
    })
    .then(
      (r) => (result = r),
      // Not even started (the network could not be made): waitListening reports it.
      (error: unknown) => {
        failed = error;
        return null;
      },
    );
  try {
    await waitListening(ctx, name, params.port, () => {
      if (failed) throw failed;
      return result;
    });
    const value = await transfer(hostPort);
    const r = await run;
    if (!r) throw failed;
    if (r.exitCode !== 0)
      throw new Error(`the container exited with ${r.exitCode}: ${tail(r.stderr) || tail(r.stdout)}`);
    return value;
  } catch (error) {
    await ctx.remove(name);
    await run;
    throw error;
  }
}

/** A transfer's throughput and the bytes the far side counted. */
interface Transfer {
  mibPerSecond: number;
  bytes: number;
}

const connectTo = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });

/**
 * Reads `socket` to the far side's end of stream, handing what arrives to `onData`; fails on a
 * socket error, after the transfer's deadline, or when the run is interrupted.
 */
function untilEnd(
  ctx: EngineContext,
  socket: Socket,
  what: string,
  bytes: number,
  onData: (d: Buffer) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        socket.destroy();
        reject(new Error(`${what} transfer timed out`));
      },
      deadlineFor(ctx, bytes),
    );
    onAbort(ctx, () => {
      clearTimeout(timer);
      socket.destroy();
      reject(new InterruptedError());
    });
    socket.on('data', onData);
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const msSince = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * Host → container: nc in the container hands the connection to `wc -c`, which counts what
 * arrives until the host's end of stream and writes the count back. Timed from the connection to
 * that count: a short transfer is an error, never a fast result.
 */
async function hostToContainer(ctx: EngineContext, params: NetworkParameters): Promise<Transfer> {
  const command = ['/bin/nc', '-l', '-p', String(params.port), '-e', '/bin/sh', '-c', 'wc -c'];
  return withListener(ctx, params, command, async (hostPort) => {
    const socket = await connectTo(hostPort);
    const t0 = process.hrtime.bigint();
    let reply = '';
    const done = untilEnd(ctx, socket, 'host → container', params.bytes, (d) => (reply += d.toString()));
    streamZeros(socket, params.bytes);
    await done.finally(() => socket.destroy());
    const ms = msSince(t0);
    const counted = Number(reply.trim());
    if (!/^\d+$/.test(reply.trim()) || counted !== params.bytes)
      throw new Error(`the container counted ${reply.trim() || 'nothing'} of ${params.bytes} bytes`);
    return { mibPerSecond: mibPerSecond(counted, ms), bytes: counted };
  });
}

/**
 * Container → host: dd | nc in the container streams whole blocks to the host's connection, which
 * counts them until the container's end of stream; timed from the connection to that end.
 */
async function containerToHost(ctx: EngineContext, params: NetworkParameters): Promise<Transfer> {
  const blocks = Math.ceil(params.bytes / DD_BLOCK);
  const expected = blocks * DD_BLOCK;
  const command = [
    '/bin/sh',
    '-c',
    `dd if=/dev/zero bs=${DD_BLOCK} count=${blocks} 2>/dev/null | nc -l -p ${params.port}`,
  ];
  return withListener(ctx, params, command, async (hostPort) => {
    const socket = await connectTo(hostPort);
    const t0 = process.hrtime.bigint();
    let bytes = 0;
    await untilEnd(ctx, socket, 'container → host', expected, (d) => (bytes += d.length)).finally(() =>
      socket.destroy(),
    );
    const ms = msSince(t0);
    if (bytes !== expected) throw new Error(`received ${bytes} of ${expected} bytes from the container`);
    return { mibPerSecond: mibPerSecond(bytes, ms), bytes };
  });
}

export const engineNetworkThroughput: EngineBenchmark<NetworkParameters> = {
  definition: {
    name: 'engine.network.throughput',
    description:
      "The runc-crun study's transfer through a published port, at engine level: per direction a container on the engine's private bridge network with its port published on 127.0.0.1 only (Docker: docker-proxy; Podman, nerdctl: CNI portmap); host → container streams `bytes` into busybox nc, whose `wc -c` reports the count received; container → host streams dd | nc to the host, which counts. Timed on the host from the connection to the far side's end; a short count is an error (the counts are the *_bytes metrics). The throughput metrics are network.throughput's, which streams the same over the CNI bridge to the pod's address with no port publishing.",
    origin: ['runc-crun'],
    metrics: [
      ...networkBenchmark.definition.metrics,
      ...(['host_to_pod', 'pod_to_host'] as const).map((m) => ({
        name: `${m}_bytes`,
        unit: 'bytes' as const,
        direction: 'higher' as const,
        description: `bytes the far side counted (${m.replace(/_/g, ' ')}); anything but the whole transfer fails the repetition`,
      })),
    ],
  },
  network: 'bridge, one port published on 127.0.0.1',
  parameters: (config) => config.parameters['network.throughput'],
  async iterate(ctx, params) {
    const gathered: Gathered = { values: {}, errors: {} };
    const failures: (string | null)[] = [];
    for (const direction of params.directions) {
      if (ctx.signal.aborted) throw new InterruptedError();
      const metric = metricOf[direction];
      failures.push(
        await part(gathered, [metric, `${metric}_bytes`], direction, async () => {
          const t =
            direction === 'host-to-pod'
              ? await hostToContainer(ctx, params)
              : await containerToHost(ctx, params);
          gathered.values[metric] = t.mibPerSecond;
          gathered.values[`${metric}_bytes`] = t.bytes;
        }),
      );
    }
    return finish(gathered, failures);
  },
};
