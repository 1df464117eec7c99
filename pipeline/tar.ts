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

/**
 * ustar headers for an archive that is byte-identical for the same input: mode 0644,
 * uid/gid 0, mtime 0, no user names. Paths over 100 bytes are split into ustar's
 * prefix (≤155) and name (≤100) at a slash; longer ones throw. Any `tar` (GNU, bsdtar,
 * busybox) and untar() above read the result. Written as blocks so that a large archive
 * can be streamed (pipeline/bundle.ts) instead of built in memory.
 */
export function tarHeader(file: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  let name = file, prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const i = name.slice(0, 155).lastIndexOf('/');
    if (i === -1 || Buffer.byteLength(name.slice(i + 1)) > 100) throw new Error(`path too long for ustar: ${file}`);
    prefix = name.slice(0, i);
    name = name.slice(i + 1);
  }
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100, 'ascii');
  header.write('0000000\0', 108, 'ascii');
  header.write('0000000\0', 116, 'ascii');
  header.write(size.toString(8).padStart(11, '0') + '\0', 124, 'ascii');
  header.write('00000000000\0', 136, 'ascii');
  header.write('        ', 148, 'ascii'); // the checksum is computed with its own field as spaces
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return header;
}

/** Zero bytes that pad a member's content to a whole block. */
export const tarPadding = (size: number) => Buffer.alloc((512 - (size % 512)) % 512);
/** Two zero blocks end an archive. */
export const TAR_END = Buffer.alloc(1024);

/** A whole archive in memory (small archives and tests). */
export function tar(entries: { path: string; content: Buffer }[]): Buffer {
  return Buffer.concat([...entries.flatMap((e) => [tarHeader(e.path, e.content.length), e.content, tarPadding(e.content.length)]), TAR_END]);
}
