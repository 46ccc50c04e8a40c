import { inflateSync } from 'node:zlib';

/**
 * The RGBA pixels of a PNG image, decoded here (for the QR reader): 8-bit greyscale, RGB,
 * grey-alpha or RGBA, not interlaced, which covers Chromium's screenshots and canvas exports.
 * Anything else is refused, so a test cannot pass on pixels this did not understand.
 * (A scratch browser page decoded them before: a renderer process started for each image.)
 */
export function decodePng(png: Buffer): { width: number; height: number; rgba: Uint8ClampedArray } {
  if (png.readUInt32BE(0) !== 0x89504e47 || png.readUInt32BE(4) !== 0x0d0a1a0a) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8);
      channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colour!] ?? 0;
      if (depth !== 8 || !channels || interlace !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? rows[out + x - channels]! : 0;
      const up = y > 0 ? rows[out - stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? rows[out - stride + x - channels]! : 0;
      rows[out + x] = (line[x]! + unfilter(filter, left, up, upLeft)) & 0xff;
    }
  }
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let pixel = 0; pixel < width * height; pixel++) {
    const from = pixel * channels;
    const colour = channels >= 3;
    rgba[pixel * 4] = rows[from]!;
    rgba[pixel * 4 + 1] = rows[colour ? from + 1 : from]!;
    rgba[pixel * 4 + 2] = rows[colour ? from + 2 : from]!;
    rgba[pixel * 4 + 3] = channels === 4 ? rows[from + 3]! : channels === 2 ? rows[from + 1]! : 255;
  }
  return { width, height, rgba };
}

/** What a PNG filter added to a byte, from its left, upper and upper-left neighbours. */
function unfilter(filter: number, left: number, up: number, upLeft: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return left;
    case 2:
      return up;
    case 3:
      return (left + up) >> 1;
    case 4: {
      const estimate = left + up - upLeft;
      const [toLeft, toUp, toUpLeft] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
      return toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
    }
    default:
      throw new Error(`unknown PNG filter ${filter}`);
  }
}
