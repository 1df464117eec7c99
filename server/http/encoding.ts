/**
 * Content codings: which one a request accepts (RFC 9110 §12.5.3, q-values included), and
 * compressing a composed body once per coding. node:zlib has both brotli and gzip built in
 * and runs them on libuv's thread pool when called asynchronously, so a large body is
 * compressed without holding the event loop; no npm package would add anything here.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants as zc, createBrotliCompress, createGzip, gzip } from 'node:zlib';

/** The codings the server can send; '' is identity. */
export type Coding = '' | 'br' | 'gzip';

/** Bodies below this stay identity: a header's worth of savings is not worth a compression (same rule as the build's variants). */
export const COMPRESS_MIN_BYTES = 1024;

interface Accepted { q: Map<string, number>; star?: number }

function parse(header: string): Accepted {
  const q = new Map<string, number>();
  let star: number | undefined;
  for (const member of header.split(',')) {
    const [rawName, ...params] = member.split(';');
    let name = rawName.trim().toLowerCase();
    if (!name) continue;
    if (name === 'x-gzip') name = 'gzip'; // RFC 9110 §8.4.1.3: equivalent to gzip
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (!m) continue;
      // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); anything else makes the member unusable.
      weight = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(m[1]) ? Number(m[1]) : NaN;
    }
    if (Number.isNaN(weight)) continue;
    if (name === '*') star = weight;
    else q.set(name, Math.max(weight, q.get(name) ?? 0));
  }
  return { q, star };
}

/**
 * The coding to send, given the request's Accept-Encoding and the codings this body has
 * (in the server's order of preference, br before gzip). The highest q wins; equal q
 * prefer br, then gzip, then identity. No header: identity. When nothing offered is
 * acceptable (`identity;q=0` and no br/gzip), identity is sent anyway, as RFC 9110 allows,
 * rather than a 406 that would break clients with odd headers.
 */
export function negotiate(header: string | string[] | undefined, offered: readonly Exclude<Coding, ''>[]): Coding {
  if (header === undefined) return '';
  const text = Array.isArray(header) ? header.join(',') : header;
  // Clients send a handful of distinct headers; parsing one was ~0.5 µs of every request (issue 14).
  const memoKey = text.length <= MEMO_HEADER_MAX ? `${offered[0]}${offered.length > 1 ? offered[1] : ''}|${text}` : undefined;
  const known = memoKey === undefined ? undefined : memo.get(memoKey);
  if (known !== undefined) return known;
  const best = choose(text, offered);
  if (memoKey !== undefined) {
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(memoKey, best);
  }
  return best;
}

/** Bounds of negotiate's memo: a few hundred distinct short headers, never a client-grown map. */
const MEMO_MAX = 512;
const MEMO_HEADER_MAX = 256;
const memo = new Map<string, Coding>();

function choose(text: string, offered: readonly Exclude<Coding, ''>[]): Coding {
  const { q, star } = parse(text);
  const weight = (c: string) => q.get(c) ?? star ?? (c === 'identity' ? 1 : 0);
  let best: Coding = '';
  let bestQ = weight('identity');
  for (const c of offered) {
    const w = weight(c);
    if (w > 0 && w > bestQ) {
      best = c;
      bestQ = w;
    } else if (w > 0 && w === bestQ && best === '') {
      // A tie with identity: the compressed form is better for both sides.
      best = c;
    }
  }
  return best;
}

const br = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * Brotli quality 5 and gzip level 6: measured in README "Compressed responses"
 * (bench/compression.ts) — most of quality 11's ratio at a small fraction of its time,
 * which matters for composed bodies compressed at request time (a study range, a live list).
 */
export const BROTLI_QUALITY = 5;
export const GZIP_LEVEL = 6;
/**
 * Bodies over 1 MiB (a 100-verse study range is 4.6 MB) are compressed at brotli quality 3
 * and gzip level 3: on that range, 21 ms / 203 KB and 27 ms / 474 KB against 54 ms /
 * 143 KB and 66 ms / 377 KB at 5 and 6 (docs/benchmarks.md, "Study ranges"): the time is
 * the answer's latency, and 200 KB is still 4 % of the body.
 */
export const LARGE_BODY = 2 ** 20;
export const LARGE_BROTLI_QUALITY = 3;
export const LARGE_GZIP_LEVEL = 3;

/**
 * A part whose bytes are made only when the body is written: a stored panel text kept
 * deflated (api/v1/study-panels.ts), so a range answered from compressed forms made
 * earlier (the same ETag) never inflates it, and a cache of composed verses holds ~1/4 of
 * the bytes. `length`: the bytes it makes; `held`: the bytes it keeps meanwhile.
 */
export interface Deferred { readonly length: number; readonly held: number; bytes(): Buffer }
export type Part = Buffer | Deferred;
/** A part's bytes (a deferred part made now). */
export const partBytes = (p: Part): Buffer => (Buffer.isBuffer(p) ? p : p.bytes());

/**
 * A composed body: one Buffer or string, or parts written one after another (a study
 * range splices ~300 cached panel fragments: not joined into a 4 MB Buffer per request).
 */
export type Body = Buffer | string | readonly Part[];
export const bodyLength = (b: Body) => (typeof b === 'string' || Buffer.isBuffer(b) ? Buffer.byteLength(b) : b.reduce((n, p) => n + p.length, 0));
/** The body as one Buffer or string (parts made and joined). */
export const joinedBody = (b: Body): Buffer | string => (typeof b === 'string' || Buffer.isBuffer(b) ? b : Buffer.concat(b.map(partBytes), bodyLength(b)));

export async function compress(body: Body, coding: Exclude<Coding, ''>): Promise<Buffer> {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return compressOne(typeof body === 'string' ? Buffer.from(body) : body, coding);
  // Parts are copied into a reused buffer for the one compression call: a fresh 4 MB Buffer
  // per study range was external memory V8 counts towards its next full collection.
  const length = bodyLength(body);
  const buf = takeScratch(length);
  try {
    if (length > LARGE_BODY) return await compressStreamed(body, buf, coding);
    let at = 0;
    for (const p of body) at += partBytes(p).copy(buf, at);
    return await compressOne(buf.subarray(0, length), coding);
  } finally {
    giveScratch(buf);
  }
}

/** How much of a large body is handed to the compressor at a time. */
const STREAM_CHUNK = 256 * 1024;

/**
 * A large body of parts (a study range, ~4 MB, its stored texts inflated as they are
 * copied): handed to a streaming compressor 256 KB at a time, the event loop given back
 * after each, so the thread pool compresses what is written while the next parts are
 * made. One call after copying everything did the two one after the other (docs/
 * benchmarks.md, "Cold study ranges, fourth pass"). The same settings as compressOne.
 */
async function compressStreamed(parts: readonly Part[], buf: Buffer, coding: Exclude<Coding, ''>): Promise<Buffer> {
  const length = bodyLength(parts);
  const z = coding === 'br'
    ? createBrotliCompress({ chunkSize: 64 * 1024, params: { [zc.BROTLI_PARAM_QUALITY]: LARGE_BROTLI_QUALITY, [zc.BROTLI_PARAM_SIZE_HINT]: length, [zc.BROTLI_PARAM_MODE]: zc.BROTLI_MODE_TEXT } })
    : createGzip({ chunkSize: 64 * 1024, level: LARGE_GZIP_LEVEL });
  const out: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    z.on('data', (c: Buffer) => out.push(c)).once('end', resolve).once('error', reject);
  });
  try {
    let at = 0;
    let sent = 0;
    for (const p of parts) {
      at += partBytes(p).copy(buf, at);
      if (at - sent < STREAM_CHUNK) continue;
      // Written regions of `buf` are never written again: the compressor may still be reading them.
      z.write(buf.subarray(sent, at));
      sent = at;
      await new Promise((resolve) => setImmediate(resolve));
    }
    z.end(buf.subarray(sent, at));
    await done;
  } catch (err) {
    z.destroy();
    throw err;
  }
  return Buffer.concat(out);
}

function compressOne(buf: Buffer, coding: Exclude<Coding, ''>): Promise<Buffer> {
  const large = buf.length > LARGE_BODY;
  return coding === 'br'
    ? br(buf, { params: { [zc.BROTLI_PARAM_QUALITY]: large ? LARGE_BROTLI_QUALITY : BROTLI_QUALITY, [zc.BROTLI_PARAM_SIZE_HINT]: buf.length, [zc.BROTLI_PARAM_MODE]: zc.BROTLI_MODE_TEXT } })
    : gz(buf, { level: large ? LARGE_GZIP_LEVEL : GZIP_LEVEL });
}

/**
 * Scratch buffers for compressing parts: at most SCRATCH_KEPT kept (one per compression
 * under way; two ranges compress at once only under load), none over SCRATCH_MAX (a
 * 100-verse range is ~4 MB; anything larger gets a buffer of its own, dropped after).
 */
const SCRATCH_KEPT = 2;
const SCRATCH_MAX = 16 * 2 ** 20;
const scratch: Buffer[] = [];
function takeScratch(length: number): Buffer {
  const i = scratch.findIndex((b) => b.length >= length);
  if (i !== -1) return scratch.splice(i, 1)[0];
  // Rounded up to whole MiB, so a slightly larger range does not replace the buffer again.
  return Buffer.allocUnsafeSlow(length > SCRATCH_MAX ? length : Math.ceil(length / 2 ** 20) * 2 ** 20);
}
function giveScratch(buf: Buffer) {
  if (buf.length > SCRATCH_MAX) return;
  if (scratch.length >= SCRATCH_KEPT) scratch.sort((a, b) => a.length - b.length).shift();
  scratch.push(buf);
}

/**
 * ETag of one representation: the identity ETag's hash with `-br` / `-gz`, strong (each is
 * byte-stable). Kept by hash (up to ETAGS_KEPT hashes): a cached body's ETag is the same
 * text for every request, and one made again each time was a new concatenated string that
 * node's header check flattened again for every response (issue 41, fifteenth pass: that
 * check cost 0.7 µs a request more than in the floor, whose header values are constant;
 * the ETag and RateLimit were the two values made anew).
 */
export function etagFor(base: string, coding: Coding): string {
  let made = etags.get(base);
  if (!made) {
    if (etags.size >= ETAGS_KEPT) etags.clear();
    etags.set(base, (made = [`"${base}"`, `"${base}-br"`, `"${base}-gz"`]));
  }
  return made[coding === '' ? 0 : coding === 'br' ? 1 : 2];
}
const ETAGS_KEPT = 4096;
const etags = new Map<string, [string, string, string]>();

/** Compressed forms of one body: the bytes, or null when compressing did not make it smaller. */
export type Forms = Partial<Record<'br' | 'gzip', Buffer | null>>;
export const formsBytes = (f: Forms) => (f.br?.length ?? 0) + (f.gzip?.length ?? 0);

/**
 * A composed body and its compressed forms, each made at most once (concurrent requests
 * share one compression); `null` when compressing did not make it smaller.
 */
export class Encoded {
  private made: Partial<Record<'br' | 'gzip', Promise<Buffer | null>>> = {};
  /** Representations ready to send, so a cached body is answered without a promise. */
  private ready: Partial<Record<Coding, { body: Buffer | string; coding: Coding }>>;
  private sizes = 0;
  private readonly length: number;
  /** Codings worth offering for this body. */
  readonly offered: readonly ('br' | 'gzip')[];
  constructor(readonly body: Body, readonly hash: string) {
    this.length = bodyLength(body);
    this.offered = this.length >= COMPRESS_MIN_BYTES ? BOTH : NONE;
    this.ready = typeof body === 'string' || Buffer.isBuffer(body) ? { '': { body, coding: '' } } : {};
  }

  get bytes() {
    return this.length + this.sizes;
  }

  /** The identity form; parts are joined only when a client asks for identity. */
  private identity() {
    return (this.ready[''] ??= { body: joinedBody(this.body), coding: '' });
  }

  /** The bytes to send for `coding` and the coding they really have (identity when compression did not help). */
  get(coding: Coding): { body: Buffer | string; coding: Coding } | Promise<{ body: Buffer | string; coding: Coding }> {
    return this.ready[coding] ?? (coding === '' ? this.identity() : this.make(coding));
  }

  /**
   * The compressed forms made so far, without the body they were made from (null: not
   * smaller). A study range keeps these by its ETag (core/app.ts): its identity body is
   * recomposed from cached panels at each request anyway, and is ~14 times its br form.
   */
  forms(): Forms {
    const out: Forms = {};
    for (const c of BOTH) if (this.ready[c]) out[c] = this.ready[c]!.coding ? (this.ready[c]!.body as Buffer) : null;
    return out;
  }

  /** Takes forms made earlier from the same bytes (the same ETag), so they are not made again. */
  adopt(forms: Forms) {
    for (const c of BOTH) {
      const f = forms[c];
      if (f === undefined || this.ready[c]) continue;
      this.ready[c] = f ? { body: f, coding: c } : this.identity();
      this.sizes += f?.length ?? 0;
    }
  }

  private async make(coding: Exclude<Coding, ''>) {
    const p = (this.made[coding] ??= compress(this.body, coding).then((c) => {
      const smaller = c.length < this.length ? c : null;
      this.sizes += smaller?.length ?? 0;
      this.ready[coding] = smaller ? { body: smaller, coding } : this.identity();
      return smaller;
    }));
    const c = await p;
    return c ? { body: c, coding } : this.identity();
  }
}
const BOTH = ['br', 'gzip'] as const;
const NONE = [] as const;
