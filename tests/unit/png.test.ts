import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodePng } from '../support/png';

/** A PNG of `pixels` (rows of samples), each row written with `filters[y]`, as an encoder would. */
function encode(width: number, height: number, colour: number, channels: number, samples: number[], filters: number[], depth = 8): Buffer {
  const stride = width * channels;
  const raw: number[] = [];
  const at = (x: number, y: number) => (x < 0 || y < 0 ? 0 : samples[y * stride + x]!);
  for (let y = 0; y < height; y++) {
    const filter = filters[y % filters.length]!;
    raw.push(filter);
    for (let x = 0; x < stride; x++) {
      const [left, up, upLeft] = [at(x - channels, y), at(x, y - 1), at(x - channels, y - 1)];
      const estimate = left + up - upLeft;
      const paeth = [left, up, upLeft].reduce((best, value) => (Math.abs(estimate - value) < Math.abs(estimate - best) ? value : best));
      const predicted = [0, left, up, (left + up) >> 1, paeth][filter]!;
      raw.push((at(x, y) - predicted + 256) & 0xff);
    }
  }
  const chunk = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    return Buffer.concat([length, Buffer.from(type, 'latin1'), body, Buffer.alloc(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([depth, colour, 0, 0, 0], 8);
  const data = deflateSync(Buffer.from(raw));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    // Two IDAT chunks: a decoder must join them.
    chunk('IDAT', data.subarray(0, 5)),
    chunk('IDAT', data.subarray(5)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const [width, height] = [7, 5];
const samples = (channels: number) => Array.from({ length: width * height * channels }, (_, index) => (index * 73 + (index >> 3) * 41) % 256);

describe('decodePng (the QR reader\'s PNG decoder)', () => {
  it.each([
    { colour: 6, channels: 4, rgba: (s: number[], p: number) => [s[p * 4], s[p * 4 + 1], s[p * 4 + 2], s[p * 4 + 3]] },
    { colour: 2, channels: 3, rgba: (s: number[], p: number) => [s[p * 3], s[p * 3 + 1], s[p * 3 + 2], 255] },
    { colour: 4, channels: 2, rgba: (s: number[], p: number) => [s[p * 2], s[p * 2], s[p * 2], s[p * 2 + 1]] },
    { colour: 0, channels: 1, rgba: (s: number[], p: number) => [s[p], s[p], s[p], 255] },
  ])('colour type $colour: every filter (none, sub, up, average, Paeth) decodes to the pixels written', ({ colour, channels, rgba }) => {
    const written = samples(channels);
    const image = decodePng(encode(width, height, colour, channels, written, [0, 1, 2, 3, 4]));
    expect([image.width, image.height]).toEqual([width, height]);
    expect(Array.from(image.rgba)).toEqual(Array.from({ length: width * height }, (_, pixel) => rgba(written, pixel)).flat());
  });

  it('refuses what it does not decode: not a PNG, 16-bit samples, a palette', () => {
    expect(() => decodePng(Buffer.from('GIF89a..........'))).toThrow('not a PNG');
    expect(() => decodePng(encode(1, 1, 6, 4, [0, 0, 0, 0, 0, 0, 0, 0], [0], 16))).toThrow('unsupported PNG');
    expect(() => decodePng(encode(1, 1, 3, 1, [0], [0]))).toThrow('unsupported PNG');
  });
});
