// HPACK (RFC 7541), the header compression of HTTP/2, as far as a unary gRPC client needs it
// (h2-connection.ts says why the CRI client speaks HTTP/2 itself): a full decoder — the runtime's
// gRPC server indexes headers in its dynamic table and Huffman-codes their strings — and an
// encoder that never indexes, so no dynamic table of ours has to be kept in step with the server.

/** A header block the peer sent that RFC 7541 does not allow: a COMPRESSION_ERROR of the connection. */
export class HpackError extends Error {
  constructor(message: string) {
    super(`HPACK: ${message}`);
    this.name = 'HpackError';
  }
}

/** RFC 7541 Appendix A, index 1 to 61. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/**
 * The bit length of each symbol's code (RFC 7541 Appendix B; 256 is EOS). The code is canonical:
 * codes of one length are consecutive in symbol order, each length's first code follows the
 * previous length's last, so the lengths alone define it (huffmanTree builds it from them).
 */
// prettier-ignore
const HUFFMAN_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];
const EOS = 256;

/** The canonical code of each symbol, as [code, length] (exported for the tests' encoder). */
export function huffmanCodes(): [number, number][] {
  const symbols = HUFFMAN_LENGTHS.map((length, symbol) => ({ length, symbol })).sort(
    (a, b) => a.length - b.length || a.symbol - b.symbol,
  );
  const codes: [number, number][] = new Array<[number, number]>(HUFFMAN_LENGTHS.length);
  let code = 0;
  let previous = symbols[0]!.length;
  symbols.forEach(({ length, symbol }, k) => {
    if (k > 0) code = (code + 1) * 2 ** (length - previous);
    previous = length;
    codes[symbol] = [code, length];
  });
  return codes;
}

/** The decoding tree, flat: node n's children are at tree[2n] (bit 0) and tree[2n + 1]; a leaf is −1 − symbol. */
const huffmanTree: Int32Array = (() => {
  const tree = new Int32Array(2 * 2 * HUFFMAN_LENGTHS.length).fill(0);
  let nodes = 1;
  huffmanCodes().forEach(([code, length], symbol) => {
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + (Math.floor(code / 2 ** bit) % 2);
      if (bit === 0) tree[slot] = -1 - symbol;
      else node = tree[slot] || (tree[slot] = nodes++);
    }
  });
  return tree;
})();

export function huffmanDecode(bytes: Uint8Array): string {
  const out: number[] = [];
  let node = 0;
  let depth = 0; // bits since the last symbol
  let allOnes = true; // those bits are all 1 (a valid padding is a prefix of EOS)
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      const next = huffmanTree[2 * node + one]!;
      depth++;
      allOnes &&= one === 1;
      if (next < 0) {
        const symbol = -1 - next;
        if (symbol === EOS) throw new HpackError('EOS symbol inside a Huffman-coded string');
        out.push(symbol);
        node = depth = 0;
        allOnes = true;
      } else node = next;
    }
  }
  if (depth > 7 || !allOnes) throw new HpackError('invalid padding of a Huffman-coded string');
  return Buffer.from(out).toString('latin1');
}

/** A decoded header list, in the order of the block (names are lower case, as HTTP/2 requires). */
export type HeaderList = (readonly [name: string, value: string])[];

/** The per-connection decoder: its dynamic table follows every header block the peer sends, in order. */
export class HpackDecoder {
  private readonly table: [string, string][] = []; // newest first
  private size = 0;
  private maxSize: number;
  /** The limit we announced in SETTINGS_HEADER_TABLE_SIZE; the peer's size updates may not exceed it. */
  private readonly limit: number;

  constructor(limit = 4096) {
    this.limit = limit;
    this.maxSize = limit;
  }

  /** The table's size in RFC 7541 terms (each entry: name and value octets + 32). */
  get tableSize(): number {
    return this.size;
  }

  decode(block: Uint8Array): HeaderList {
    const headers: HeaderList = [];
    let at = 0;
    const integer = (prefixBits: number): number => {
      if (at >= block.length) throw new HpackError('header block ends inside an integer');
      const max = (1 << prefixBits) - 1;
      let value = block[at++]! & max;
      if (value < max) return value;
      for (let shift = 0; ; shift += 7) {
        if (at >= block.length) throw new HpackError('header block ends inside an integer');
        if (shift > 28) throw new HpackError('integer too large');
        const byte = block[at++]!;
        value += (byte & 0x7f) * 2 ** shift;
        if ((byte & 0x80) === 0) return value;
      }
    };
    const string = (): string => {
      if (at >= block.length) throw new HpackError('header block ends before a string');
      const huffman = (block[at]! & 0x80) !== 0;
      const length = integer(7);
      if (at + length > block.length) throw new HpackError('string longer than the header block');
      const bytes = block.subarray(at, (at += length));
      return huffman ? huffmanDecode(bytes) : Buffer.from(bytes).toString('latin1');
    };
    let fieldSeen = false;
    while (at < block.length) {
      const first = block[at]!;
      if (first & 0x80) {
        headers.push(this.entry(integer(7)));
        fieldSeen = true;
      } else if ((first & 0xe0) === 0x20) {
        // A size update must start the block (RFC 7541 §4.2).
        if (fieldSeen) throw new HpackError('dynamic table size update after a header field');
        const size = integer(5);
        if (size > this.limit) throw new HpackError(`table size update to ${size} above ${this.limit}`);
        this.maxSize = size;
        this.evict(0);
      } else {
        const indexing = (first & 0xc0) === 0x40;
        const index = integer(indexing ? 6 : 4);
        const name = index === 0 ? string() : this.entry(index)[0];
        const value = string();
        headers.push([name, value]);
        fieldSeen = true;
        if (indexing) this.add(name, value);
      }
    }
    return headers;
  }

  private entry(index: number): readonly [string, string] {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entry = this.table[index - STATIC_TABLE.length - 1];
    if (!entry) throw new HpackError(`index ${index} beyond the tables`);
    return entry;
  }

  private add(name: string, value: string): void {
    const size = name.length + value.length + 32; // latin1: one char per octet
    this.evict(size);
    if (size > this.maxSize) return; // an entry larger than the table empties it (RFC 7541 §4.4)
    this.table.unshift([name, value]);
    this.size += size;
  }

  /** Drops the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.table.length > 0 && this.size + room > this.maxSize) {
      const [name, value] = this.table.pop()!;
      this.size -= name.length + value.length + 32;
    }
  }
}

function encodeInteger(out: number[], value: number, prefixBits: number, flags: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  for (value -= max; value >= 0x80; value = Math.floor(value / 0x80)) out.push((value % 0x80) | 0x80);
  out.push(value);
}

function encodeString(out: number[], text: string): void {
  const bytes = Buffer.from(text, 'latin1');
  encodeInteger(out, bytes.length, 7, 0);
  for (const b of bytes) out.push(b);
}

/**
 * A header block of `headers` (lower-case names, latin1 values) that leaves the peer's dynamic
 * table alone: a static entry when one matches name and value, else a literal without indexing
 * (under a static name when there is one), strings as they are (no Huffman).
 */
export function encodeHeaders(headers: readonly (readonly [string, string])[]): Buffer {
  const out: number[] = [];
  for (const [name, value] of headers) {
    const exact = STATIC_TABLE.findIndex(([n, v]) => n === name && v === value);
    if (exact >= 0) {
      encodeInteger(out, exact + 1, 7, 0x80);
      continue;
    }
    const named = STATIC_TABLE.findIndex(([n]) => n === name);
    encodeInteger(out, named + 1, 4, 0); // 0 when no static name: the name follows as a string
    if (named < 0) encodeString(out, name);
    encodeString(out, value);
  }
  return Buffer.from(out);
}
