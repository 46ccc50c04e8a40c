import qrcode from 'qrcode-generator';
import { svg } from './dom';

/** Quiet zone around the code, in modules (the QR specification asks for 4). */
const QUIET = 4;

/**
 * A QR code of `text` as an SVG: one path of dark runs, scaled by CSS, sharp at any size and
 * allowed by a strict CSP (no data: image, no inline style). Error correction M.
 */
export function qrSvg(text: string, label: string): SVGElement {
  const code = qrcode(0, 'M');
  code.addData(text, 'Byte');
  code.make();
  const count = code.getModuleCount();
  let path = '';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; ) {
      if (!code.isDark(row, col)) {
        col += 1;
        continue;
      }
      let run = 1;
      while (col + run < count && code.isDark(row, col + run)) run += 1;
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
