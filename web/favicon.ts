/**
 * The page's favicon.ico, drawn here (no binary in the repository): a 32 x 32 icon, 32-bit
 * BMP inside the ICO container, a disc in the page's link blue. Browsers ask for /favicon.ico
 * on their own; without one they log a 404.
 */
const SIZE = 32;
const BLUE = [0x1d, 0x4e, 0xd8] as const;

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  const center = (SIZE - 1) / 2;
  const radius = SIZE / 2 - 1;
  // BMP rows run bottom-up, each pixel B, G, R, A.
  for (let row = 0; row < SIZE; row++) {
    for (let column = 0; column < SIZE; column++) {
      const distance = Math.hypot(column - center, row - center);
      const coverage = Math.max(0, Math.min(1, radius + 0.5 - distance));
      const offset = ((SIZE - 1 - row) * SIZE + column) * 4;
      pixels[offset] = BLUE[2];
      pixels[offset + 1] = BLUE[1];
      pixels[offset + 2] = BLUE[0];
      pixels[offset + 3] = Math.round(coverage * 255);
    }
  }
  // The 1-bit AND mask (rows padded to 4 bytes) stays empty: the alpha channel decides.
  const mask = Buffer.alloc(Math.ceil(SIZE / 32) * 4 * SIZE);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // header size
  info.writeInt32LE(SIZE, 4); // width
  info.writeInt32LE(SIZE * 2, 8); // height: colour rows and mask rows
  info.writeUInt16LE(1, 12); // planes
  info.writeUInt16LE(32, 14); // bits per pixel
  info.writeUInt32LE(pixels.length + mask.length, 20); // image size (no compression)
  const image = Buffer.concat([info, pixels, mask]);

  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18); // where the image starts
  return Buffer.concat([header, image]);
}
