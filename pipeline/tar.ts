/**
 * Reads one member out of a gzipped tar (an npm registry tarball). ustar headers are
 * 512-byte blocks; pax extended headers ('x') may carry a long path. Small on purpose:
 * registry tarballs are plain archives of regular files.
 */
import { gunzipSync } from 'node:zlib';

function field(block: Buffer, start: number, len: number): string {
  const raw = block.subarray(start, start + len);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? len : end).toString('utf8');
}

/** Every regular file in the archive, by path. */
export function untar(tgz: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  let paxPath: string | undefined;
  for (let off = 0; off + 512 <= tar.length; ) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 48);
    const prefix = field(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const body = tar.subarray(off + 512, off + 512 + size);
    paxPath = undefined;
    if (type === 'x') {
      const m = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      paxPath = m?.[1];
    } else if (type === '0' || type === '\0') {
      files.set(name, Buffer.from(body));
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
