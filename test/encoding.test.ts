/** Compression levels by body size (server/http/encoding.ts): large composed bodies trade a little ratio for latency. */
import { brotliCompressSync, brotliDecompressSync, constants as zc, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BROTLI_QUALITY, Encoded, LARGE_BODY, LARGE_BROTLI_QUALITY, LARGE_GZIP_LEVEL, compress, formsBytes } from '../server/http/encoding.ts';

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

describe('compressed forms kept apart from their body (a study range, kept by its ETag)', () => {
  it('a body composed again takes the forms made before: the same bytes, not compressed again, counted', async () => {
    const text = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ verse: i, text: 'In the beginning God created the heaven and the earth.' })));
    const first = new Encoded(text, 'h');
    const br = await first.get('br');
    const forms = first.forms();
    expect(forms.br).toBe(br.body);
    expect(forms.gzip).toBeUndefined(); // not asked for, not made
    expect(formsBytes(forms)).toBe((br.body as Buffer).length);
    const again = new Encoded(Buffer.from(text), 'h');
    again.adopt(forms);
    const got = again.get('br');
    expect(got).not.toBeInstanceOf(Promise); // ready at once: nothing compressed
    expect((got as { body: Buffer }).body).toBe(br.body);
    expect(again.bytes).toBe(Buffer.byteLength(text) + (br.body as Buffer).length);
    expect(brotliDecompressSync(br.body as Buffer).toString()).toBe(text);
  });

  it('a form that did not help is kept as such, and the identity body is sent for it', async () => {
    const noise = (await import('node:crypto')).randomBytes(4096); // incompressible
    const first = new Encoded(noise, 'r');
    expect(await first.get('gzip')).toEqual({ body: noise, coding: '' });
    const forms = first.forms();
    expect(forms.gzip).toBeNull();
    expect(formsBytes(forms)).toBe(0);
    const again = new Encoded(noise, 'r');
    again.adopt(forms);
    expect(again.get('gzip')).toEqual({ body: noise, coding: '' });
    expect(again.bytes).toBe(4096);
  });
});
