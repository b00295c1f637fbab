// The client side of one HTTP/2 connection (RFC 9113) over a unix socket, as much of it as unary
// gRPC calls to a local CRI runtime use: requests with a small body, responses of headers, data and
// trailers, flow control both ways, SETTINGS, PING, GOAWAY and RST_STREAM. No TLS, no server push,
// no priorities, no HTTP/1 upgrade.
//
// Why not node:http2: every call through it builds a Duplex stream object, crosses into nghttp2
// and back for each frame and event, and sends from a setImmediate after the call returns. On
// the CRI's ~0.3 ms round trip that path cost ~0.3 ms back-to-back and more after an idle pause,
// where a cold CPU runs it slower still — 0.5–0.7 ms above the kubelet's Go client on the short
// calls (issue 43; docs/cri-client.md has the measurements). Here a call is one write of a few
// frames and one pass over the bytes of its reply, in the socket's own 'data' callback.
import { connect as connectUnix, type Socket } from 'node:net';
import { encodeHeaders, HpackDecoder, HpackError, type HeaderList } from './hpack.ts';

const FRAME = {
  DATA: 0,
  HEADERS: 1,
  RST_STREAM: 3,
  SETTINGS: 4,
  PUSH_PROMISE: 5,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
  CONTINUATION: 9,
} as const;
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
const SETTING = {
  ENABLE_PUSH: 2,
  MAX_CONCURRENT_STREAMS: 3,
  INITIAL_WINDOW_SIZE: 4,
  MAX_FRAME_SIZE: 5,
} as const;

/** HTTP/2 error codes (RFC 9113 §7) this client sends or names. */
export const H2_ERROR = {
  NO_ERROR: 0,
  PROTOCOL_ERROR: 1,
  FLOW_CONTROL_ERROR: 3,
  FRAME_SIZE_ERROR: 6,
  REFUSED_STREAM: 7,
  CANCEL: 8,
  COMPRESSION_ERROR: 9,
} as const;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const MAX_WINDOW = 2 ** 31 - 1;
const DEFAULT_WINDOW = 65_535;
/** The largest frame we accept: the protocol's default, as we announce no other. */
const MAX_FRAME = 16_384;
const MAX_STREAM_ID = 2 ** 31 - 1;

/** What the connection tells the owner of one stream. */
export interface StreamListener {
  /** A whole header block: the response headers first, the trailers after the data. */
  onHeaders(headers: HeaderList): void;
  onData(chunk: Buffer): void;
  /**
   * Called exactly once, last: after the peer ended the stream (rstCode 0, no error), reset it
   * (its code), we cancelled it, or the connection broke or refused it (`error`).
   */
  onClose(rstCode: number, error?: Error): void;
}

interface OpenStream {
  id: number;
  listener: StreamListener;
  sendWindow: number;
  /** Body bytes flow control has held back; null once END_STREAM is sent. */
  unsent: Buffer | null;
}

interface QueuedRequest {
  block: Buffer;
  body: Buffer;
  stream: OpenStream;
}

function frameHeader(length: number, type: number, flags: number, streamId: number): Buffer {
  const header = Buffer.allocUnsafe(9);
  header.writeUIntBE(length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return header;
}

function u32Frame(type: number, flags: number, streamId: number, ...values: number[]): Buffer[] {
  const payload = Buffer.allocUnsafe(4 * values.length);
  values.forEach((v, k) => payload.writeUInt32BE(v, 4 * k));
  return [frameHeader(payload.length, type, flags, streamId), payload];
}

export class H2Connection {
  private readonly socket: Socket;
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, OpenStream>();
  private readonly queued: QueuedRequest[] = [];
  private readonly onUnusable: () => void;
  private nextStreamId = 1;
  private peerMaxFrame = 16_384;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxStreams = Infinity;
  private sendWindow = DEFAULT_WINDOW;
  /** DATA octets received since our last connection-level WINDOW_UPDATE. */
  private unacknowledged = 0;
  private pending: Buffer | null = null;
  private headerBlock: { id: number; endStream: boolean; parts: Buffer[] } | null = null;
  private out: Buffer[] = [];
  private wasConnected = false;
  private goneAway = false;
  private closing = false;
  private closed = false;

  /** `onUnusable` runs once the connection takes no new requests (closed, broken or going away). */
  constructor(socketPath: string, onUnusable: () => void) {
    this.onUnusable = onUnusable;
    this.socket = connectUnix(socketPath);
    // A call in flight keeps the process alive through its deadline timer; an idle connection does not.
    this.socket.unref();
    this.socket.on('connect', () => (this.wasConnected = true));
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.destroy(error));
    this.socket.on('end', () => this.destroy(new Error('the server closed the connection')));
    this.socket.on('close', () => this.destroy(new Error('the connection closed')));
    // Our receive windows at their maximum: a response never waits for us, and the connection
    // window is topped up in one WINDOW_UPDATE per GiB (read()).
    const settings = Buffer.allocUnsafe(12);
    settings.writeUInt16BE(SETTING.ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTING.INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(MAX_WINDOW, 8);
    this.socket.write(
      Buffer.concat([
        PREFACE,
        frameHeader(settings.length, FRAME.SETTINGS, 0, 0),
        settings,
        ...u32Frame(FRAME.WINDOW_UPDATE, 0, 0, MAX_WINDOW - DEFAULT_WINDOW),
      ]),
    );
  }

  /** The socket connected (an error after that broke a connection rather than failed to open one). */
  get connected(): boolean {
    return this.wasConnected;
  }

  /** Takes new requests: not closed, broken, going away or out of stream ids. */
  get usable(): boolean {
    return !this.closed && !this.goneAway && !this.closing && this.nextStreamId <= MAX_STREAM_ID;
  }

  /**
   * Opens a stream with `headers` and sends `body` as its whole request; returns its id. The
   * frames leave in one write, now (or once the peer's stream limit lets the stream open).
   */
  request(headers: readonly (readonly [string, string])[], body: Buffer, listener: StreamListener): number {
    if (!this.usable) throw new Error('the HTTP/2 connection takes no new requests');
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    if (this.nextStreamId > MAX_STREAM_ID) this.onUnusable();
    const stream: OpenStream = { id, listener, sendWindow: this.peerInitialWindow, unsent: body };
    const request = { block: encodeHeaders(headers), body, stream };
    if (this.streams.size >= this.peerMaxStreams) this.queued.push(request);
    else this.open(request);
    return id;
  }

  /** Resets a stream of ours (e.g. its deadline passed); its listener's onClose gets `code`. */
  cancel(id: number, code: number = H2_ERROR.CANCEL): void {
    const queued = this.queued.findIndex((q) => q.stream.id === id);
    if (queued >= 0) {
      this.queued.splice(queued, 1)[0]!.stream.listener.onClose(code);
      return;
    }
    const stream = this.streams.get(id);
    if (!stream) return;
    this.out.push(...u32Frame(FRAME.RST_STREAM, 0, id, code));
    this.finish(stream, code);
    this.flush();
  }

  /** No new requests; the socket closes once the streams in flight are over. */
  close(): void {
    if (this.closed || this.closing) return;
    this.closing = true;
    this.onUnusable();
    this.closeWhenIdle();
  }

  private open({ block, stream }: QueuedRequest): void {
    this.streams.set(stream.id, stream);
    for (let at = 0, first = true; first || at < block.length; first = false) {
      const part = block.subarray(at, (at += this.peerMaxFrame));
      const last = at >= block.length;
      this.out.push(
        frameHeader(
          part.length,
          first ? FRAME.HEADERS : FRAME.CONTINUATION,
          last ? END_HEADERS : 0,
          stream.id,
        ),
        part,
      );
    }
    this.sendBody(stream);
    this.flush();
  }

  /** DATA frames for as much of the stream's body as the windows and the frame size allow. */
  private sendBody(stream: OpenStream): void {
    while (stream.unsent) {
      const size = Math.min(stream.unsent.length, this.peerMaxFrame, stream.sendWindow, this.sendWindow);
      if (size <= 0 && stream.unsent.length > 0) return;
      const chunk = stream.unsent.subarray(0, size);
      stream.unsent = size === stream.unsent.length ? null : stream.unsent.subarray(size);
      stream.sendWindow -= size;
      this.sendWindow -= size;
      this.out.push(frameHeader(size, FRAME.DATA, stream.unsent ? 0 : END_STREAM, stream.id), chunk);
    }
  }

  private flush(): void {
    if (this.out.length === 0 || this.closed) return;
    const frames = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out);
    this.out = [];
    this.socket.write(frames);
  }

  private finish(stream: OpenStream, rstCode: number, error?: Error): void {
    if (this.streams.get(stream.id) !== stream) return;
    this.streams.delete(stream.id);
    stream.listener.onClose(rstCode, error);
    while (this.queued.length > 0 && this.streams.size < this.peerMaxStreams && !this.closed)
      this.open(this.queued.shift()!);
    this.closeWhenIdle();
  }

  private closeWhenIdle(): void {
    if (this.closed || (!this.closing && !this.goneAway) || this.streams.size > 0 || this.queued.length > 0)
      return;
    this.out.push(...u32Frame(FRAME.GOAWAY, 0, 0, 0, H2_ERROR.NO_ERROR));
    this.flush();
    this.closed = true;
    this.socket.end();
  }

  /** Ends the connection: every stream and queued request closes with `error`. */
  private destroy(error: Error): void {
    if (this.closed && this.streams.size === 0 && this.queued.length === 0) return;
    this.closed = true;
    this.socket.destroy();
    this.onUnusable();
    for (const stream of [...this.streams.values(), ...this.queued.splice(0).map((q) => q.stream)]) {
      this.streams.delete(stream.id);
      stream.listener.onClose(0, error);
    }
  }

  /** A connection error (RFC 9113 §5.4.1): GOAWAY with its code, then the end. */
  private fail(code: number, message: string): void {
    this.out.push(...u32Frame(FRAME.GOAWAY, 0, 0, 0, code));
    this.flush();
    this.destroy(new Error(`HTTP/2 protocol error from the server: ${message}`));
  }

  private read(chunk: Buffer): void {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    while (data.length >= 9 && !this.closed) {
      const length = data.readUIntBE(0, 3);
      if (length > MAX_FRAME) return this.fail(H2_ERROR.FRAME_SIZE_ERROR, `a frame of ${length} octets`);
      if (data.length < 9 + length) break;
      try {
        this.frame(data[3]!, data[4]!, data.readUInt32BE(5) & 0x7fffffff, data.subarray(9, 9 + length));
      } catch (error) {
        // A field read past its frame's end: a frame shorter than its type requires.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ERR_OUT_OF_RANGE' && code !== 'ERR_BUFFER_OUT_OF_BOUNDS') throw error;
        return this.fail(H2_ERROR.FRAME_SIZE_ERROR, `frame of type ${data[3]} too short`);
      }
      data = data.subarray(9 + length);
    }
    if (data.length > 0 && !this.closed) this.pending = Buffer.from(data);
    if (this.unacknowledged >= 2 ** 30) {
      this.out.push(...u32Frame(FRAME.WINDOW_UPDATE, 0, 0, this.unacknowledged));
      this.unacknowledged = 0;
    }
    this.flush();
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.headerBlock && (type !== FRAME.CONTINUATION || id !== this.headerBlock.id))
      return this.fail(H2_ERROR.PROTOCOL_ERROR, 'a header block interrupted');
    switch (type) {
      case FRAME.DATA: {
        if (id === 0) return this.fail(H2_ERROR.PROTOCOL_ERROR, 'DATA on stream 0');
        this.unacknowledged += payload.length;
        const data = this.unpad(flags, payload);
        if (!data) return;
        const stream = this.streams.get(id);
        if (!stream) return; // a stream we cancelled: its data still counted against the window
        if (data.length > 0) stream.listener.onData(data);
        if (flags & END_STREAM) this.finish(stream, 0);
        return;
      }
      case FRAME.HEADERS: {
        if (id === 0) return this.fail(H2_ERROR.PROTOCOL_ERROR, 'HEADERS on stream 0');
        let fragment = this.unpad(flags, payload);
        if (!fragment) return;
        if (flags & PRIORITY) {
          if (fragment.length < 5) return this.fail(H2_ERROR.FRAME_SIZE_ERROR, 'HEADERS priority cut short');
          fragment = fragment.subarray(5);
        }
        this.headerBlock = { id, endStream: (flags & END_STREAM) !== 0, parts: [fragment] };
        if (flags & END_HEADERS) this.headersDone();
        return;
      }
      case FRAME.CONTINUATION:
        if (!this.headerBlock) return this.fail(H2_ERROR.PROTOCOL_ERROR, 'CONTINUATION without HEADERS');
        this.headerBlock.parts.push(payload);
        if (flags & END_HEADERS) this.headersDone();
        return;
      case FRAME.RST_STREAM: {
        const stream = this.streams.get(id);
        if (payload.length !== 4) return this.fail(H2_ERROR.FRAME_SIZE_ERROR, 'RST_STREAM size');
        if (stream) this.finish(stream, payload.readUInt32BE(0));
        return;
      }
      case FRAME.SETTINGS:
        if (flags & ACK) return;
        if (id !== 0 || payload.length % 6 !== 0)
          return this.fail(H2_ERROR.PROTOCOL_ERROR, 'malformed SETTINGS');
        for (let at = 0; at < payload.length; at += 6)
          this.setting(payload.readUInt16BE(at), payload.readUInt32BE(at + 2));
        if (this.closed) return;
        this.out.push(frameHeader(0, FRAME.SETTINGS, ACK, 0));
        return this.resume();
      case FRAME.PUSH_PROMISE:
        return this.fail(H2_ERROR.PROTOCOL_ERROR, 'PUSH_PROMISE although push is disabled');
      case FRAME.PING:
        if (payload.length !== 8) return this.fail(H2_ERROR.FRAME_SIZE_ERROR, 'PING size');
        if (!(flags & ACK)) this.out.push(frameHeader(8, FRAME.PING, ACK, 0), Buffer.from(payload));
        return;
      case FRAME.GOAWAY: {
        const lastStreamId = payload.readUInt32BE(0) & 0x7fffffff;
        const code = payload.readUInt32BE(4);
        this.goneAway = true;
        this.onUnusable();
        // Streams above the last one the server processed never ran: the caller may retry them.
        const refused = new Error(`the server is going away (GOAWAY, code ${code})`);
        for (const stream of [...this.streams.values()])
          if (stream.id > lastStreamId) this.finish(stream, H2_ERROR.REFUSED_STREAM, refused);
        for (const q of this.queued.splice(0)) q.stream.listener.onClose(H2_ERROR.REFUSED_STREAM, refused);
        return this.closeWhenIdle();
      }
      case FRAME.WINDOW_UPDATE: {
        const increment = payload.length === 4 ? payload.readUInt32BE(0) & 0x7fffffff : 0;
        if (increment === 0) return this.fail(H2_ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0 or bad size');
        if (id === 0) this.sendWindow += increment;
        else {
          const stream = this.streams.get(id);
          if (stream) stream.sendWindow += increment;
        }
        if (this.sendWindow > MAX_WINDOW)
          return this.fail(H2_ERROR.FLOW_CONTROL_ERROR, 'window above 2^31-1');
        return this.resume();
      }
      default: // PRIORITY and unknown types: nothing to do (RFC 9113 §5.5)
        return;
    }
  }

  /** A padded frame's content, or null after failing the connection on a bad pad length. */
  private unpad(flags: number, payload: Buffer): Buffer | null {
    if (!(flags & PADDED)) return payload;
    const pad = payload[0] ?? 0;
    if (payload.length === 0 || pad >= payload.length) {
      this.fail(H2_ERROR.PROTOCOL_ERROR, 'padding longer than the frame');
      return null;
    }
    return payload.subarray(1, payload.length - pad);
  }

  private headersDone(): void {
    const { id, endStream, parts } = this.headerBlock!;
    this.headerBlock = null;
    let headers: HeaderList;
    try {
      // Every block is decoded, a cancelled stream's too: the dynamic table must follow the server's.
      headers = this.decoder.decode(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    } catch (error) {
      if (!(error instanceof HpackError)) throw error;
      return this.fail(H2_ERROR.COMPRESSION_ERROR, error.message);
    }
    const stream = this.streams.get(id);
    if (!stream) return;
    stream.listener.onHeaders(headers);
    if (endStream) this.finish(stream, 0);
  }

  private setting(id: number, value: number): void {
    switch (id) {
      case SETTING.MAX_CONCURRENT_STREAMS:
        this.peerMaxStreams = value;
        return;
      case SETTING.INITIAL_WINDOW_SIZE: {
        if (value > MAX_WINDOW) return this.fail(H2_ERROR.FLOW_CONTROL_ERROR, 'initial window above 2^31-1');
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
        return;
      }
      case SETTING.MAX_FRAME_SIZE:
        if (value < 16_384 || value > 16_777_215) return this.fail(H2_ERROR.PROTOCOL_ERROR, 'MAX_FRAME_SIZE');
        this.peerMaxFrame = value;
        return;
      default: // HEADER_TABLE_SIZE concerns an encoder's dynamic table: ours has none.
        return;
    }
  }

  /** After a window grew or the stream limit rose: the bodies and streams that waited for it. */
  private resume(): void {
    for (const stream of this.streams.values()) if (stream.unsent) this.sendBody(stream);
    while (this.queued.length > 0 && this.streams.size < this.peerMaxStreams) this.open(this.queued.shift()!);
  }
}
