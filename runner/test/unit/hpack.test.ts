// HPACK against the examples of RFC 7541 Appendix C: each block's bytes and the headers and table
// size the RFC gives for it, so every expectation comes from the specification, not from the code.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { encodeHeaders, HpackDecoder, HpackError, huffmanCodes, huffmanDecode } from '../../src/cri/hpack.ts';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('Huffman code (RFC 7541 Appendix B, C.4 and C.6)', () => {
  test.each([
    ['f1e3 c2e5 f23a 6ba0 ab90 f4ff', 'www.example.com'],
    ['a8eb 1064 9cbf', 'no-cache'],
    ['25a8 49e9 5ba9 7d7f', 'custom-key'],
    ['25a8 49e9 5bb8 e8b4 bf', 'custom-value'],
    ['6402', '302'],
    ['aec3 771a 4b', 'private'],
    ['d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff', 'Mon, 21 Oct 2013 20:13:21 GMT'],
    ['9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3', 'https://www.example.com'],
  ])('%s decodes to "%s"', (bytes, text) => {
    expect(huffmanDecode(hex(bytes))).toBe(text);
  });

  test('the code is a prefix code with lengths 5 to 30 whose Kraft sum is exactly 1', () => {
    const codes = huffmanCodes();
    expect(codes).toHaveLength(257);
    expect(Math.min(...codes.map(([, l]) => l))).toBe(5);
    expect(Math.max(...codes.map(([, l]) => l))).toBe(30);
    expect(codes.reduce((sum, [, l]) => sum + 2 ** -l, 0)).toBe(1);
    // Appendix B: "0" is 00000 (5 bits), "a" 00011 (5 bits), EOS 30 ones.
    expect(codes[48]).toEqual([0, 5]);
    expect(codes[97]).toEqual([3, 5]);
    expect(codes[256]).toEqual([2 ** 30 - 1, 30]);
  });

  test('every byte string survives a round trip through the code', () => {
    const codes = huffmanCodes();
    const encode = (bytes: Uint8Array): Buffer => {
      let bits = '';
      for (const b of bytes) bits += codes[b]![0].toString(2).padStart(codes[b]![1], '0');
      bits += '1'.repeat((8 - (bits.length % 8)) % 8); // padding: the EOS prefix
      return Buffer.from(bits.match(/.{8}/g)?.map((byte) => parseInt(byte, 2)) ?? []);
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(huffmanDecode(encode(bytes))).toBe(Buffer.from(bytes).toString('latin1'));
      }),
    );
  });

  test('padding longer than 7 bits, padding with a 0 bit, or the EOS symbol is an error', () => {
    expect(() => huffmanDecode(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff ff'))).toThrow(HpackError);
    expect(() => huffmanDecode(hex('65'))).toThrow(HpackError); // "3" (011001), then padding 01
    expect(() => huffmanDecode(hex('ffff fffc'))).toThrow(/EOS/);
  });
});

describe('header blocks (RFC 7541 C.3, C.4, C.5)', () => {
  const request1: [string, string][] = [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'www.example.com'],
  ];
  const request2: [string, string][] = [...request1, ['cache-control', 'no-cache']];
  const request3: [string, string][] = [
    [':method', 'GET'],
    [':scheme', 'https'],
    [':path', '/index.html'],
    [':authority', 'www.example.com'],
    ['custom-key', 'custom-value'],
  ];

  test('C.3: requests without Huffman, sharing one dynamic table', () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'))).toEqual(request1);
    expect(decoder.tableSize).toBe(57);
    expect(decoder.decode(hex('8286 84be 5808 6e6f 2d63 6163 6865'))).toEqual(request2);
    expect(decoder.tableSize).toBe(110);
    expect(
      decoder.decode(hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65')),
    ).toEqual(request3);
    expect(decoder.tableSize).toBe(164);
  });

  test('C.4: the same requests with Huffman-coded strings', () => {
    const decoder = new HpackDecoder();
    expect(decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'))).toEqual(request1);
    expect(decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf'))).toEqual(request2);
    expect(decoder.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'))).toEqual(
      request3,
    );
    expect(decoder.tableSize).toBe(164);
  });

  test('C.5: responses in a 256-octet table, the oldest entries evicted', () => {
    const decoder = new HpackDecoder(256);
    const date1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
    const location = 'https://www.example.com';
    expect(
      decoder.decode(
        hex(
          '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
        ),
      ),
    ).toEqual([
      [':status', '302'],
      ['cache-control', 'private'],
      ['date', date1],
      ['location', location],
    ]);
    expect(decoder.tableSize).toBe(222);
    // ":status: 307" evicts ":status: 302" and takes index 62.
    expect(decoder.decode(hex('4803 3330 37c1 c0bf'))).toEqual([
      [':status', '307'],
      ['cache-control', 'private'],
      ['date', date1],
      ['location', location],
    ]);
    expect(decoder.tableSize).toBe(222);
    expect(
      decoder.decode(
        hex(
          '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
        ),
      ),
    ).toEqual([
      [':status', '200'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
      ['location', location],
      ['content-encoding', 'gzip'],
      ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
    ]);
    expect(decoder.tableSize).toBe(215);
  });

  test('a size update shrinks the table; one above our limit, index 0 or a cut block is an error', () => {
    const decoder = new HpackDecoder();
    decoder.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'));
    expect(decoder.decode(hex('20 82'))).toEqual([[':method', 'GET']]); // size 0: table emptied
    expect(decoder.tableSize).toBe(0);
    expect(() => decoder.decode(hex('be'))).toThrow(/beyond/); // index 62 is gone with it
    expect(() => new HpackDecoder().decode(hex('3fe2 1f'))).toThrow(/above 4096/); // update to 4097
    expect(() => new HpackDecoder().decode(hex('80'))).toThrow(HpackError);
    expect(() => new HpackDecoder().decode(hex('0f77 7777'))).toThrow(HpackError);
    expect(() => new HpackDecoder().decode(hex('82 20'))).toThrow(/after a header field/);
  });
});

describe('encodeHeaders', () => {
  test('static entries are indexed, other headers literal without indexing (RFC 7541 §6.1, §6.2.2)', () => {
    // :method POST is static index 3; :path (index 4) with a new value is 0x04, a 7-bit length, the bytes.
    expect(
      encodeHeaders([
        [':method', 'POST'],
        [':path', '/a'],
        ['te', 'trailers'],
      ]).toString('hex'),
    ).toBe('83' + '04022f61' + '000274650874726169' + '6c657273');
  });

  test('whatever it encodes decodes to the same list and leaves the dynamic table empty', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
    const value = fc.string({
      unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
      maxLength: 300,
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 12 }), (headers) => {
        const decoder = new HpackDecoder();
        expect(decoder.decode(encodeHeaders(headers))).toEqual(headers);
        expect(decoder.tableSize).toBe(0);
      }),
    );
  });
});
