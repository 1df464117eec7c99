/** Compression levels by body size (server/http/encoding.ts): large composed bodies trade a little ratio for latency. */
import { brotliCompressSync, brotliDecompressSync, constants as zc, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BROTLI_QUALITY, LARGE_BODY, LARGE_BROTLI_QUALITY, LARGE_GZIP_LEVEL, compress } from '../server/http/encoding.ts';

const text = (bytes: number) => {
  const words = ['ἐν', 'ἀρχῇ', 'ἦν', 'ὁ', 'λόγος', 'lemma', 'strong', 'G3056', '"morphology"', '{"code":"N-NSM"}'];
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) { const w = words[(i * 7 + (i >> 3)) % words.length] + (i % 13); out.push(w); n += w.length + 1; }
  return Buffer.from(out.join(' '));
};
const brotli = (b: Buffer, q: number) => brotliCompressSync(b, { params: { [zc.BROTLI_PARAM_QUALITY]: q, [zc.BROTLI_PARAM_SIZE_HINT]: b.length, [zc.BROTLI_PARAM_MODE]: zc.BROTLI_MODE_TEXT } });

describe('compress', () => {
  it('uses brotli quality 3 and gzip level 3 above 1 MiB, and decodes to the same bytes', async () => {
    const big = text(LARGE_BODY + 4096);
    const br = await compress(big, 'br');
    expect(br.equals(brotli(big, LARGE_BROTLI_QUALITY))).toBe(true);
    expect(br.equals(brotli(big, BROTLI_QUALITY))).toBe(false);
    expect(brotliDecompressSync(br).equals(big)).toBe(true);
    const gz = await compress(big, 'gzip');
    expect(gunzipSync(gz).equals(big)).toBe(true);
    expect(gz.length).toBe(gzipSync(big, { level: LARGE_GZIP_LEVEL }).length);
  });
  it('keeps brotli quality 5 for ordinary bodies', async () => {
    const small = text(64 * 1024);
    expect((await compress(small, 'br')).equals(brotli(small, BROTLI_QUALITY))).toBe(true);
  });
});
