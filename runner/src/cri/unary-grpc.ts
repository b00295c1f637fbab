// Unary gRPC over our own HTTP/2 connection (h2-connection.ts), for the CRI's unix socket.
//
// Why not @grpc/grpc-js: its per-call machinery (resolving, load-balancing and subchannel call
// layers, filters, metadata copies) cost ~0.5 ms of client CPU per call on our 2-core runners,
// inside every timed CRI call (issue #11 item 10a; `node runner/bench/cri-client.ts` measures it
// against the kubelet's own Go client). The CRI needs none of it: one local socket, unary calls,
// no TLS, no name resolution, no retries. What remains is the wire protocol, which is small and
// fixed (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md): a POST per call, each
// message prefixed by a compressed flag and a 4-byte length, the status in the trailers. Message
// encoding stays with protobufjs (see grpc-client.ts). Why not node:http2 either (issue 43):
// h2-connection.ts.
import type { IncomingHttpHeaders } from 'node:http2';
import { H2_ERROR, H2Connection } from './h2-connection.ts';
import type { HeaderList } from './hpack.ts';
import { GrpcStatus } from './types.ts';

/** A call that ended without a response message: the gRPC status and its message. */
export class UnaryCallError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'UnaryCallError';
    this.code = code;
  }
}

/** The 5-byte length-prefixed message of the gRPC wire format (never compressed: we send no grpc-encoding). */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/**
 * The one message of a unary response from the bytes of its DATA frames. Throws UnaryCallError
 * for what the protocol forbids or we did not ask for: no message, more than one, a compressed one,
 * or one above `maxBytes`.
 */
export function unframeMessage(body: Buffer, maxBytes: number): Buffer {
  if (body.length < 5) {
    throw new UnaryCallError(
      GrpcStatus.INTERNAL,
      body.length === 0 ? 'the server sent no response message' : 'truncated gRPC message prefix',
    );
  }
  if (body[0] !== 0) {
    throw new UnaryCallError(
      GrpcStatus.INTERNAL,
      'the server sent a compressed message although the client accepts no grpc-encoding',
    );
  }
  const length = body.readUInt32BE(1);
  if (length > maxBytes) {
    throw new UnaryCallError(
      GrpcStatus.RESOURCE_EXHAUSTED,
      `response message of ${length} bytes is larger than the limit of ${maxBytes}`,
    );
  }
  if (body.length !== 5 + length) {
    throw new UnaryCallError(
      GrpcStatus.INTERNAL,
      body.length < 5 + length
        ? `truncated gRPC message: ${body.length - 5} of ${length} bytes`
        : 'the server sent more than one message on a unary call',
    );
  }
  return body.subarray(5);
}

/** The grpc-timeout header: at most 8 digits and a unit, rounded up so the server never cuts a call short. */
export function grpcTimeout(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms));
  if (whole < 1e8) return `${whole}m`;
  const seconds = Math.ceil(whole / 1000);
  return seconds < 1e8 ? `${seconds}S` : `${Math.min(Math.ceil(seconds / 3600), 99_999_999)}H`;
}

/** HTTP statuses other than 200 map to gRPC codes as the protocol's http-grpc-status-mapping says. */
export function statusOfHttp(status: number): number {
  switch (status) {
    case 400:
      return GrpcStatus.INTERNAL;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.UNKNOWN;
  }
}

/** grpc-message is percent-encoded UTF-8; a malformed one is shown as sent. */
export function decodeGrpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What a finished HTTP/2 stream left behind: the input of streamOutcome. */
export interface FinishedStream {
  headers?: IncomingHttpHeaders;
  trailers?: IncomingHttpHeaders;
  /** The stream's RST_STREAM code; 0 (NO_ERROR) when it ended normally. */
  rstCode: number;
  /** The error the stream or its connection reported, if any. */
  error?: Error;
  /** The connection was up before the error: the error broke it rather than kept it from opening. */
  connected?: boolean;
  /** Our deadline fired and cancelled the stream. */
  expired: boolean;
  timeoutMs: number;
}

/**
 * The outcome of a finished stream: null for OK, else the error. Trailers carry the status; a
 * "trailers-only" reply (an error without a message) carries it in the headers. A stream that
 * broke before any status arrived means the runtime went away mid-call (it may or may not have
 * run the call): UNAVAILABLE, which is how the run's liveness watch recognises a dying endpoint.
 */
export function streamOutcome(s: FinishedStream): UnaryCallError | null {
  if (s.expired)
    return new UnaryCallError(GrpcStatus.DEADLINE_EXCEEDED, `Deadline exceeded after ${s.timeoutMs} ms`);
  const source = s.trailers?.['grpc-status'] !== undefined ? s.trailers : s.headers;
  const status = source?.['grpc-status'];
  if (status === undefined) {
    const reason = s.error
      ? ((s.error as NodeJS.ErrnoException).code ?? s.error.message)
      : s.rstCode !== 0
        ? `HTTP/2 stream reset, code ${s.rstCode}`
        : undefined;
    if (!s.headers) {
      return new UnaryCallError(
        GrpcStatus.UNAVAILABLE,
        s.error && !s.connected
          ? `No connection established: ${s.error.message}`
          : `Connection dropped${reason ? ` (${reason})` : ''}`,
      );
    }
    if (reason) return new UnaryCallError(GrpcStatus.UNAVAILABLE, `Connection dropped (${reason})`);
    const httpStatus = Number(s.headers[':status']);
    if (httpStatus !== 200) {
      return new UnaryCallError(statusOfHttp(httpStatus), `HTTP status ${httpStatus} from the server`);
    }
    return new UnaryCallError(GrpcStatus.UNKNOWN, 'the server ended the call without a grpc-status');
  }
  const code = Number(status);
  if (!Number.isInteger(code))
    return new UnaryCallError(GrpcStatus.UNKNOWN, `invalid grpc-status "${String(status)}"`);
  if (code === GrpcStatus.OK) return null;
  return new UnaryCallError(code, decodeGrpcMessage(source!['grpc-message']));
}

export interface UnaryChannelOptions {
  /** Responses above this many bytes fail with RESOURCE_EXHAUSTED. */
  maxReceiveBytes: number;
}

/** A header list as the object streamOutcome reads: repeated names joined with ", " as Node does. */
export function headerObject(list: HeaderList): IncomingHttpHeaders {
  const headers: Record<string, string> = {};
  for (const [name, value] of list) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  return headers;
}

/** The request headers of a call: what the gRPC protocol requires and its deadline. */
export function requestHeaders(path: string, timeoutMs: number): [string, string][] {
  return [
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', path],
    [':authority', 'localhost'],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ['grpc-timeout', grpcTimeout(timeoutMs)],
  ];
}

/**
 * One HTTP/2 connection to a unix socket, opened on the first call and again after it broke
 * (a restarted runtime), carrying unary calls. The socket never keeps the process alive on its
 * own: a call in flight does, through its deadline timer.
 */
export class UnaryGrpcChannel {
  readonly socketPath: string;
  private readonly options: UnaryChannelOptions;
  private connection: H2Connection | null = null;
  private closed = false;

  constructor(socketPath: string, options: UnaryChannelOptions) {
    this.socketPath = socketPath;
    this.options = options;
  }

  private connected(): H2Connection {
    if (this.connection?.usable) return this.connection;
    // Forgotten once it takes no new calls (broken, closed, going away): the next call connects again.
    const connection: H2Connection = new H2Connection(this.socketPath, () => {
      if (this.connection === connection) this.connection = null;
    });
    this.connection = connection;
    return connection;
  }

  /** Sends `message` to `path` (/package.Service/Method) and resolves with the response message. */
  call(path: string, message: Uint8Array, timeoutMs: number): Promise<Buffer> {
    if (this.closed) return Promise.reject(new UnaryCallError(GrpcStatus.UNAVAILABLE, 'channel closed'));
    return new Promise((resolve, reject) => {
      let headers: IncomingHttpHeaders | undefined;
      let trailers: IncomingHttpHeaders | undefined;
      let expired = false;
      const chunks: Buffer[] = [];
      const connection = this.connected();
      let id = 0;
      const timer = setTimeout(() => {
        expired = true;
        connection.cancel(id, H2_ERROR.CANCEL);
      }, timeoutMs);
      // The connection calls onClose once, after the last frame of the stream: the call is over
      // there, inside the socket's read callback, with nothing left to tear down.
      const listener = {
        onHeaders: (list: HeaderList): void => {
          if (headers) trailers = headerObject(list);
          else headers = headerObject(list);
        },
        onData: (chunk: Buffer): void => void chunks.push(chunk),
        onClose: (rstCode: number, error?: Error): void => {
          clearTimeout(timer);
          const outcome = streamOutcome({
            headers,
            trailers,
            rstCode,
            error,
            connected: connection.connected,
            expired,
            timeoutMs,
          });
          if (outcome) {
            reject(outcome);
            return;
          }
          try {
            const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            resolve(unframeMessage(body, this.options.maxReceiveBytes));
          } catch (error) {
            reject(error as Error);
          }
        },
      };
      try {
        id = connection.request(requestHeaders(path, timeoutMs), frameMessage(message), listener);
      } catch (error) {
        clearTimeout(timer);
        reject(new UnaryCallError(GrpcStatus.UNAVAILABLE, (error as Error).message));
      }
    });
  }

  close(): void {
    this.closed = true;
    this.connection?.close();
    this.connection = null;
  }
}
