import qrcode from 'qrcode-generator';
import { svg } from './dom';

/** Quiet zone around the code, in modules (the QR specification asks for 4). */
export const QUIET = 4;

/** The modules of a QR code of `text` (byte mode, error correction M): its size and which are dark. */
export function qrModules(text: string): { count: number; isDark: (row: number, col: number) => boolean } {
  const code = qrcode(0, 'M');
  code.addData(text, 'Byte');
  code.make();
  return { count: code.getModuleCount(), isDark: (row, col) => code.isDark(row, col) };
}

/**
 * A QR code of `text` as an SVG: one path of dark runs, scaled by CSS, sharp at any size and
 * allowed by a strict CSP (no data: image, no inline style). Error correction M.
 */
export function qrSvg(text: string, label: string): SVGElement {
  const { count, isDark } = qrModules(text);
  let path = '';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; ) {
      if (!isDark(row, col)) {
        col += 1;
        continue;
      }
      let run = 1;
      while (col + run < count && isDark(row, col + run)) run += 1;
      path += `M${col} ${row}h${run}v1h-${run}z`;
      col += run;
    }
  }
  const size = count + QUIET * 2;
  return svg(
    'svg',
    { viewBox: `${-QUIET} ${-QUIET} ${size} ${size}`, role: 'img', 'aria-label': label, class: 'qr', 'shape-rendering': 'crispEdges' },
    svg('rect', { x: -QUIET, y: -QUIET, width: size, height: size, fill: '#fff' }),
    svg('path', { d: path, fill: '#000' }),
  );
}
