// The unary gRPC transport: its pure wire-format pieces, then the channel against a real HTTP/2
// server on a unix socket in a temp dir, for the protocol cases a CRI runtime cannot be made to
// produce on demand (trailers-only replies, resets, a connection dropped mid-call, a deadline, a
// server restart). The CRI calls themselves run against containerd and CRI-O in the integration
// tests, where every call goes through this transport.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  constants,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerOptions,
  type ServerHttp2Stream,
} from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  decodeGrpcMessage,
  frameMessage,
  grpcTimeout,
  statusOfHttp,
  streamOutcome,
  UnaryCallError,
  UnaryGrpcChannel,
  unframeMessage,
} from '../../src/cri/unary-grpc.ts';
import { GrpcStatus } from '../../src/cri/types.ts';

describe('wire format', () => {
  test('a framed message is the flag 0, the big-endian length and the bytes; unframing gives them back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const frame = frameMessage(bytes);
        expect(frame.length).toBe(bytes.length + 5);
        expect(frame[0]).toBe(0);
        expect(frame[1]! * 2 ** 24 + frame[2]! * 2 ** 16 + frame[3]! * 2 ** 8 + frame[4]!).toBe(bytes.length);
        expect([...unframeMessage(frame, 1000)]).toEqual([...bytes]);
      }),
    );
  });

  test.each([
    ['no message', Buffer.alloc(0), GrpcStatus.INTERNAL, /no response message/],
    ['a truncated prefix', Buffer.from([0, 0, 0]), GrpcStatus.INTERNAL, /truncated gRPC message prefix/],
    ['a compressed message', Buffer.from([1, 0, 0, 0, 1, 7]), GrpcStatus.INTERNAL, /compressed/],
    ['a truncated body', Buffer.from([0, 0, 0, 0, 3, 7]), GrpcStatus.INTERNAL, /1 of 3 bytes/],
    ['two messages', Buffer.from([0, 0, 0, 0, 1, 7, 0, 0, 0, 0, 1, 8]), GrpcStatus.INTERNAL, /more than one/],
    [
      'one above the limit',
      Buffer.from([0, 0, 0, 0, 11, ...Array(11).fill(1)]),
      GrpcStatus.RESOURCE_EXHAUSTED,
      /11 bytes/,
    ],
  ])('unframing refuses %s', (_, body, code, message) => {
    let error: unknown;
    try {
      unframeMessage(body, 10);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnaryCallError);
    expect((error as UnaryCallError).code).toBe(code);
    expect((error as UnaryCallError).message).toMatch(message);
  });

  test('grpc-timeout has at most 8 digits, never rounds a deadline down, and names its unit', () => {
    const unitMs = { m: 1, S: 1000, H: 3_600_000 } as const;
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e15, noNaN: true }), (ms) => {
        const header = grpcTimeout(ms);
        const match = /^(\d{1,8})([mSH])$/.exec(header);
        expect(match).not.toBeNull();
        const value = Number(match![1]) * unitMs[match![2] as keyof typeof unitMs];
        expect(value).toBeGreaterThanOrEqual(Math.min(Math.max(1, ms), 99_999_999 * 3_600_000));
      }),
    );
    expect(grpcTimeout(120_000)).toBe('120000m');
    expect(grpcTimeout(0.2)).toBe('1m');
  });

  test('HTTP statuses map to gRPC codes as the protocol specifies', () => {
    expect([400, 401, 403, 404, 429, 502, 503, 504, 500].map(statusOfHttp)).toEqual([
      13, 16, 7, 12, 14, 14, 14, 14, 2,
    ]);
  });

  test('grpc-message is percent-decoded; a malformed one is kept as sent', () => {
    expect(decodeGrpcMessage('container%20%22x%22%20not%20found')).toBe('container "x" not found');
    expect(decodeGrpcMessage('100%')).toBe('100%');
    expect(decodeGrpcMessage(undefined)).toBe('');
  });
});

describe('streamOutcome', () => {
  // Node delivers :status as a number although the header type says string.
  const headers = (h: Record<string, unknown>): IncomingHttpHeaders => h as IncomingHttpHeaders;
  const ok = headers({ ':status': 200, 'content-type': 'application/grpc' });
  const base = { rstCode: 0, expired: false, timeoutMs: 1000 };

  test('status 0 in the trailers is success; another code carries its decoded message', () => {
    expect(streamOutcome({ ...base, headers: ok, trailers: { 'grpc-status': '0' } })).toBeNull();
    const e = streamOutcome({
      ...base,
      headers: ok,
      trailers: { 'grpc-status': '5', 'grpc-message': 'not%20found' },
    });
    expect([e?.code, e?.message]).toEqual([5, 'not found']);
  });

  test('a trailers-only reply carries its status in the headers', () => {
    const e = streamOutcome({
      ...base,
      headers: headers({ ...ok, 'grpc-status': '12', 'grpc-message': 'unknown method' }),
    });
    expect([e?.code, e?.message]).toEqual([12, 'unknown method']);
  });

  test('a stream that broke before any status is UNAVAILABLE, connected or not', () => {
    expect(streamOutcome({ ...base, error: new Error('connect ENOENT /x.sock') })?.code).toBe(14);
    expect(streamOutcome({ ...base, error: new Error('connect ENOENT /x.sock') })?.message).toMatch(
      /No connection established.*ENOENT/,
    );
    expect(streamOutcome({ ...base, headers: ok, rstCode: constants.NGHTTP2_INTERNAL_ERROR })?.code).toBe(14);
    expect(streamOutcome({ ...base, headers: ok, error: new Error('socket hang up') })?.message).toMatch(
      /Connection dropped/,
    );
  });

  test('a deadline wins over anything else that arrived', () => {
    expect(
      streamOutcome({ ...base, headers: ok, trailers: { 'grpc-status': '0' }, expired: true })?.code,
    ).toBe(4);
  });

  test('no status on a stream that ended cleanly: UNKNOWN, or the mapped HTTP status', () => {
    expect(streamOutcome({ ...base, headers: ok })?.code).toBe(GrpcStatus.UNKNOWN);
    expect(streamOutcome({ ...base, headers: headers({ ':status': 503 }) })?.code).toBe(
      GrpcStatus.UNAVAILABLE,
    );
    expect(streamOutcome({ ...base, headers: ok, trailers: { 'grpc-status': 'x' } })?.message).toMatch(
      /invalid/,
    );
  });
});

describe('UnaryGrpcChannel against a real HTTP/2 server on a unix socket', () => {
  let dir: string;
  let socket: string;
  let server: Http2Server | undefined;
  /** What the server does with each stream; the request's body arrives as `request`. */
  let handle: (stream: ServerHttp2Stream, request: Buffer, path: string) => void;
  const echo = (stream: ServerHttp2Stream, request: Buffer): void => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(frameMessage(Buffer.concat([Buffer.from('echo:'), unframeMessage(request, 1 << 20)])));
  };

  const listen = async (options: ServerOptions = {}): Promise<void> => {
    server = createServer(options);
    server.on('stream', (stream, headers) => {
      // A reset or a destroyed session is what some tests do on purpose.
      stream.on('error', () => undefined);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => handle(stream, Buffer.concat(chunks), String(headers[':path'])));
    });
    await new Promise<void>((resolve) => server!.listen(socket, resolve));
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  const failure = async (p: Promise<unknown>): Promise<UnaryCallError> => {
    const e = await p.then(
      () => null,
      (error: unknown) => error,
    );
    expect(e).toBeInstanceOf(UnaryCallError);
    return e as UnaryCallError;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rb-unary-'));
    socket = join(dir, 'grpc.sock');
    handle = echo;
    await listen();
  });
  afterEach(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a call sends the framed request with gRPC headers and resolves with the response message', async () => {
    let seen: Record<string, unknown> = {};
    server!.on('stream', (_s, headers) => (seen = { ...headers }));
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    const reply = await channel.call('/pkg.Service/Method', Buffer.from('hello'), 5000);
    channel.close();
    expect(reply.toString()).toBe('echo:hello');
    expect(seen).toMatchObject({
      ':method': 'POST',
      ':path': '/pkg.Service/Method',
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': '5000m',
    });
  });

  test('many calls at once share one connection and each gets its own reply', async () => {
    const sessions = new Set<unknown>();
    server!.on('session', (s) => sessions.add(s));
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => channel.call('/p.S/M', Buffer.from(String(i)), 5000)),
    );
    channel.close();
    expect(replies.map(String)).toEqual(Array.from({ length: 50 }, (_, i) => `echo:${i}`));
    expect(sessions.size).toBe(1);
  });

  test('an error status (trailers-only, as containerd sends them) rejects with its code and message', async () => {
    handle = (stream) => {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '5',
          'grpc-message': 'no%20such%20pod',
        },
        { endStream: true },
      );
    };
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    const e = await failure(channel.call('/p.S/M', Buffer.from('x'), 5000));
    channel.close();
    expect([e.code, e.message]).toEqual([5, 'no such pod']);
  });

  test('a server that resets the stream, or dies mid-call, gives UNAVAILABLE', async () => {
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    handle = (stream) => stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    expect((await failure(channel.call('/p.S/M', Buffer.from('x'), 5000))).code).toBe(14);
    handle = (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.session?.destroy();
    };
    const dropped = await failure(channel.call('/p.S/M', Buffer.from('x'), 5000));
    channel.close();
    expect(dropped.code).toBe(14);
    expect(dropped.message).toMatch(/Connection dropped/);
  });

  test('no server: UNAVAILABLE naming the socket error; after the server returns, the channel connects again', async () => {
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    expect(String(await channel.call('/p.S/M', Buffer.from('a'), 5000))).toBe('echo:a');
    await stop();
    const e = await failure(channel.call('/p.S/M', Buffer.from('b'), 5000));
    expect(e.code).toBe(14);
    expect(e.message).toMatch(/ENOENT|ECONNREFUSED|Connection dropped/);
    await listen();
    expect(String(await channel.call('/p.S/M', Buffer.from('c'), 5000))).toBe('echo:c');
    channel.close();
  });

  test('a server that never answers: DEADLINE_EXCEEDED once the deadline passed, and the stream is cancelled', async () => {
    let serverSawClose: (rstCode: number | undefined) => void = () => undefined;
    const closed = new Promise<number | undefined>((resolve) => (serverSawClose = resolve));
    handle = (stream) => stream.on('close', () => serverSawClose(stream.rstCode));
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    const started = process.hrtime.bigint();
    const e = await failure(channel.call('/p.S/M', Buffer.from('x'), 50));
    const waitedMs = Number(process.hrtime.bigint() - started) / 1e6;
    channel.close();
    expect(e.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    // Ordering, not speed: the call cannot fail before its deadline.
    expect(waitedMs).toBeGreaterThanOrEqual(49);
    expect(await closed).toBe(constants.NGHTTP2_CANCEL);
  });

  test('a response above the limit fails with RESOURCE_EXHAUSTED; a closed channel refuses calls', async () => {
    handle = (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frameMessage(Buffer.alloc(4096)));
    };
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1024 });
    expect((await failure(channel.call('/p.S/M', Buffer.from('x'), 5000))).code).toBe(8);
    channel.close();
    expect((await failure(channel.call('/p.S/M', Buffer.from('x'), 5000))).code).toBe(14);
  });

  test('bodies larger than every window and frame go through flow control both ways intact', async () => {
    // The server grants 1000 octets per stream and the default 65 535 on the connection: a 200 kB
    // request must wait for its WINDOW_UPDATEs; the 200 kB reply comes in many 16 kB frames.
    await stop();
    await listen({ settings: { initialWindowSize: 1000 } });
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    const big = Buffer.alloc(200_000, 'abcdefghij');
    await channel.call('/p.S/M', Buffer.from('first'), 5000); // the server's SETTINGS are in force
    const replies = await Promise.all([1, 2, 3].map(() => channel.call('/p.S/M', big, 5000)));
    channel.close();
    for (const reply of replies) expect(reply.equals(Buffer.concat([Buffer.from('echo:'), big]))).toBe(true);
  });

  test("the server's stream limit queues calls beyond it; each still gets its reply", async () => {
    await stop();
    await listen({ settings: { maxConcurrentStreams: 2 } });
    let open = 0;
    let most = 0;
    handle = (stream, request) => {
      most = Math.max(most, ++open);
      stream.on('close', () => open--);
      setTimeout(() => echo(stream, request), 5);
    };
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    await channel.call('/p.S/M', Buffer.from('first'), 5000); // the server's SETTINGS are in
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) => channel.call('/p.S/M', Buffer.from(String(i)), 5000)),
    );
    channel.close();
    expect(replies.map(String)).toEqual(Array.from({ length: 12 }, (_, i) => `echo:${i}`));
    expect(most).toBe(2);
  });

  test('padded frames and a header block split over CONTINUATION frames decode as sent', async () => {
    await stop();
    await listen({ paddingStrategy: constants.PADDING_STRATEGY_MAX });
    const message = `no such pod: ${'x'.repeat(40_000)}`; // trailers above one 16 kB frame
    handle = (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () =>
        stream.sendTrailers({ 'grpc-status': '5', 'grpc-message': encodeURIComponent(message) }),
      );
      stream.end();
    };
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    const e = await failure(channel.call('/p.S/M', Buffer.from('x'), 5000));
    handle = echo;
    const reply = await channel.call('/p.S/M', Buffer.from('after'), 5000);
    channel.close();
    expect([e.code, e.message]).toEqual([5, message]);
    expect(String(reply)).toBe('echo:after');
  });

  test('a server going away (GOAWAY) finishes its calls; the next call opens a new connection', async () => {
    const sessions = new Set<unknown>();
    server!.on('session', (s) => sessions.add(s));
    handle = (stream, request) => {
      echo(stream, request);
      stream.session?.close(); // GOAWAY after this stream: it completes, no new ones are taken
    };
    const channel = new UnaryGrpcChannel(socket, { maxReceiveBytes: 1 << 20 });
    expect(String(await channel.call('/p.S/M', Buffer.from('a'), 5000))).toBe('echo:a');
    handle = echo;
    expect(String(await channel.call('/p.S/M', Buffer.from('b'), 5000))).toBe('echo:b');
    channel.close();
    expect(sessions.size).toBe(2);
  });

  test('an idle channel does not keep the process alive', async () => {
    const module = new URL('../../src/cri/unary-grpc.ts', import.meta.url).pathname;
    const script = `import { UnaryGrpcChannel } from ${JSON.stringify(module)};
      const c = new UnaryGrpcChannel(${JSON.stringify(socket)}, { maxReceiveBytes: 1 << 20 });
      console.log(String(await c.call('/p.S/M', Buffer.from('z'), 60000)));`;
    // The child exiting on its own is the assertion: a referenced socket would keep it waiting.
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += String(c)));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ status, stdout }).toEqual({ status: 0, stdout: 'echo:z\n' });
  });
});
