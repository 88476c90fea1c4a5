// The installed app's icons, drawn at build time (no image files in the repository): a white
// spade on the table's felt green, as PNGs written with node:zlib. "any" icons are a rounded
// square; the maskable one is full-bleed with the spade inside the safe zone (the middle 80%),
// so a launcher may cut it to a circle or a squircle without clipping the spade.
import { deflateSync } from "node:zlib";

const FELT: Rgba = [0x0f, 0x51, 0x32, 255];
const PAPER: Rgba = [0xfd, 0xfd, 0xf8, 255];
const GOLD: Rgba = [0xf0, 0xb4, 0x29, 255];
type Rgba = [number, number, number, number];

export interface IconSpec {
  file: string;
  size: number;
  maskable: boolean;
}

/** The icons the manifest lists (192 and 512 for "any", 512 maskable). */
export const ICONS: readonly IconSpec[] = [
  { file: "icons/icon-192.png", size: 192, maskable: false },
  { file: "icons/icon-512.png", size: 512, maskable: false },
  { file: "icons/icon-maskable-512.png", size: 512, maskable: true },
];

// ------------------------------------------------------------------------------ the shapes
const inCircle = (x: number, y: number, cx: number, cy: number, r: number) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

function inTriangle(x: number, y: number, a: [number, number], b: [number, number], c: [number, number]): boolean {
  const side = (p: [number, number], q: [number, number]) => (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]);
  const d1 = side(a, b);
  const d2 = side(b, c);
  const d3 = side(c, a);
  return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
}

/** A spade in unit coordinates (about 0.25..0.75 wide, 0.17..0.80 tall). */
function inSpade(x: number, y: number): boolean {
  return (
    inCircle(x, y, 0.385, 0.545, 0.128) ||
    inCircle(x, y, 0.615, 0.545, 0.128) ||
    // From the tip to the lobes' tangent points, so the sides run smoothly into them.
    inTriangle(x, y, [0.5, 0.17], [0.2816, 0.4696], [0.7184, 0.4696]) ||
    inTriangle(x, y, [0.2816, 0.4696], [0.7184, 0.4696], [0.5, 0.6]) ||
    inTriangle(x, y, [0.5, 0.55], [0.4, 0.8], [0.6, 0.8])
  );
}

function inRoundedSquare(x: number, y: number, inset: number, radius: number): boolean {
  const lo = inset + radius;
  const hi = 1 - inset - radius;
  const cx = Math.min(Math.max(x, lo), hi);
  const cy = Math.min(Math.max(y, lo), hi);
  return x >= inset && x <= 1 - inset && y >= inset && y <= 1 - inset && inCircle(x, y, cx, cy, radius);
}

/** The colour at a point of the icon (unit coordinates), or null outside it. */
function paint(x: number, y: number, maskable: boolean): Rgba | null {
  if (maskable) {
    // The spade scaled into the safe zone, a thin gold ring inside it.
    const s = 0.62;
    const sx = 0.5 + (x - 0.5) / s;
    const sy = 0.5 + (y - 0.5) / s + 0.02;
    if (inSpade(sx, sy)) return PAPER;
    const r = Math.hypot(x - 0.5, y - 0.5);
    if (r > 0.375 && r < 0.395) return GOLD;
    return FELT;
  }
  if (!inRoundedSquare(x, y, 0.02, 0.2)) return null;
  if (!inRoundedSquare(x, y, 0.05, 0.17)) return GOLD;
  const s = 0.86;
  return inSpade(0.5 + (x - 0.5) / s, 0.5 + (y - 0.5) / s + 0.015) ? PAPER : FELT;
}

/** The icon's pixels, RGBA, 4×4 samples a pixel (smooth edges). */
export function drawIcon(size: number, maskable: boolean): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const c = paint((px + (sx + 0.5) / n) / size, (py + (sy + 0.5) / n) / size, maskable);
          if (!c) continue;
          r += c[0] * c[3];
          g += c[1] * c[3];
          b += c[2] * c[3];
          a += c[3];
        }
      }
      const o = (py * size + px) * 4;
      if (a > 0) {
        out[o] = Math.round(r / a);
        out[o + 1] = Math.round(g / a);
        out[o + 2] = Math.round(b / a);
      }
      out[o + 3] = Math.round(a / (n * n));
    }
  }
  return out;
}

// ------------------------------------------------------------------------------ PNG
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** RGBA pixels → a PNG file (8 bits a channel, no filter). */
export function encodePng(size: number, rgba: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0;
    rows.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: 9 })), chunk("IEND", new Uint8Array(0))]);
}

export function iconPng(spec: IconSpec): Buffer {
  return encodePng(spec.size, drawIcon(spec.size, spec.maskable));
}
