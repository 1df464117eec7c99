/**
 * The access log and request ids of the Node server (issue 38, item 6).
 *
 * One JSON line per request, on stdout (where a supervisor or container runtime collects
 * it): `time`, `id` (the request id, also sent back as `X-Request-Id` and put in every error
 * log line about the request), `method`, `path` and `query` (any `key=` value and anything
 * shaped like a key, `alm_…`, replaced by `REDACTED`: a credential never reaches the log),
 * `status`, `bytes` (of the body), `ms` (from the request's headers to its body handed to
 * node:http whole, which gives the kernel what the socket takes in the same call; for a
 * streamed download, to its last byte handed to the kernel), `key` (the key id, never the key), `lane` (its cost class), `ip`, and
 * `aborted` when the client left first (status 499: the client closed the request).
 *
 * ALMANAC_ACCESS_LOG: `on` (the default), `off`, or a fraction from 0 to 1 that samples the
 * lines (every 5xx is logged whatever the fraction).
 *
 * Cheap per request: what a line says is taken when the request is logged, and the lines
 * of FLUSH_MS (or FLUSH_BYTES, whichever comes first) are made and written together, never
 * blocking the loop (written once per event-loop turn, the writes cost ~0.6 µs of CPU a
 * request under load, a turn holding 10-30 requests; each line made as its request was
 * logged, ~2 µs, against ~0.35 µs in the loop of a flush: issue 41). A
 * line reaches stdout at most 10 ms after its response; flushSync writes what waits when
 * the server stops. Stdout as a pipe or socket (a supervisor, a container runtime) is
 * written through process.stdout: libuv writes at once on this thread and keeps what the
 * pipe cannot take yet; anything else (a file, a terminal) with one write(2) on the thread
 * pool. A reader too slow to keep up (a stdout pipe nobody drains) does not stall serving:
 * beyond 1 MiB waiting, lines are dropped and counted, and the count is logged once the
 * writes go through again.
 *
 * Why not fs.write for a pipe too (issue 41): Node makes its stdout pipe non-blocking, so
 * a write to a full pipe failed with EAGAIN and its lines were lost without being counted
 * (18,897 of 20,000 behind a reader paused for 1.5 s); and the thread pool's round trip
 * per turn cost ~2–3 µs of CPU a request on one core.
 */
import { randomBytes } from 'node:crypto';
import { fstatSync, write } from 'node:fs';
import { decimal, hundredths } from '../http/decimal.ts';

export interface AccessLogOptions {
  /** 1: every request; 0.1: one in ten (and every 5xx); 0: off. */
  sample: number;
  /** Where lines go (default: stdout's descriptor, 1). */
  fd?: number;
  /** Instead of a descriptor: a stream taking the lines (default: process.stdout when descriptor 1 is a pipe or socket). */
  stream?: Pick<NodeJS.WriteStream, 'write' | 'once' | 'on' | 'writableLength'>;
  /** Instead of a descriptor (tests): receives each batch of lines. */
  sink?: (text: string) => void;
}

/** ALMANAC_ACCESS_LOG, checked: on, off, or a sampling fraction. */
export function accessLogSample(env: NodeJS.ProcessEnv = process.env): number {
  const raw = (env.ALMANAC_ACCESS_LOG ?? 'on').trim();
  if (raw === 'on' || raw === '1') return 1;
  if (raw === 'off' || raw === '0') return 0;
  const n = Number(raw);
  if (!/^(0?\.\d+|1\.0*)$/.test(raw) || !(n >= 0 && n <= 1)) throw new Error(`ALMANAC_ACCESS_LOG must be on, off or a fraction from 0 to 1 (got ${JSON.stringify(raw.slice(0, 40))})`);
  return n;
}

/** What one line says; the Node adapter fills it as the request goes. */
export interface Entry {
  id: string;
  method: string;
  url: string;
  status: number;
  bytes: number;
  start: number;
  key?: string;
  lane?: string;
  ip?: string;
  aborted?: boolean;
}

const MAX_WAITING = 2 ** 20;
/** What a request logged but not formatted yet is counted as besides its target, in bytes (a line is ~230 with a short one), against MAX_WAITING and FLUSH_BYTES. */
const HELD_BYTES = 256;

/** A request logged, its line not made yet: what the line will say, taken when it was logged. */
interface Held { id: string; method: string; url: string; status: number; bytes: number; ms: number; at: number; key?: string; lane?: string; ip?: string; aborted?: boolean }
/** How long lines wait to be written together, at most, and how many bytes of them start a write at once. */
export const FLUSH_MS = 10;
const FLUSH_BYTES = 64 * 1024;
const KEYISH = /alm_[^&/?#\s]*/g;

/** The request target without credentials: `key=` values and key-shaped strings become REDACTED. */
export function redactTarget(url: string): { path: string; query: string } {
  const qi = url.indexOf('?');
  let path = qi === -1 ? url : url.slice(0, qi);
  let query = qi === -1 ? '' : url.slice(qi + 1);
  if (path.includes('alm_')) path = path.replace(KEYISH, 'REDACTED');
  // A percent-encoded name (k%65y) is a key= parameter too, as the core decodes it.
  if (query && (/key=/i.test(query) || query.includes('%') || query.includes('alm_'))) {
    const p = new URLSearchParams(query);
    let out = '';
    for (const [k, v] of p) out += `${out ? '&' : ''}${encodeURIComponent(k)}=${k.toLowerCase() === 'key' || v.includes('alm_') ? 'REDACTED' : encodeURIComponent(v)}`;
    query = out;
  }
  return { path, query };
}

export class AccessLog {
  /** Lines made, and requests whose lines are made at the next flush (format()). */
  private waiting = '';
  private held: Held[] = [];
  /** What the held requests' lines are counted as (HELD_BYTES and each target's length: a flood of long targets stays within MAX_WAITING). */
  private heldBytes = 0;
  private writing = false;
  private dropped = 0;
  private scheduled = false;
  private readonly fd: number;
  private readonly stream?: AccessLogOptions['stream'];
  /** Waiting for the stream's 'drain' (it holds more than it could write at once). */
  private draining = false;

  constructor(private readonly opts: AccessLogOptions) {
    this.fd = opts.fd ?? 1;
    this.stream = opts.sink ? undefined : opts.stream ?? (this.fd === 1 && isPipe(1) ? process.stdout : undefined);
    // The reader gone (EPIPE): stop logging rather than fail (an unhandled 'error' would end the process).
    this.stream?.on('error', () => (this.opts.sample = 0));
  }

  get on() {
    return this.opts.sample > 0;
  }

  private lastMs = 0;
  private lastIso = '';
  /** A time (ms since the epoch) as ISO 8601, formatted once per millisecond (a flush holds many lines of each). */
  private iso(ms: number) {
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /**
   * Logs one finished request (sampled): what its line says is taken now, and the line made
   * at the next flush with the others (format()). Made here, between two requests' work, a
   * line cost ~2 µs of the server's CPU; in a loop of a flush's lines, ~0.35 µs (issue 41).
   */
  log(e: Entry) {
    if (this.opts.sample < 1 && e.status < 500 && Math.random() >= this.opts.sample) return;
    if (this.waiting.length + this.heldBytes + (this.stream?.writableLength ?? 0) > MAX_WAITING) {
      this.dropped++;
      return;
    }
    const at = performance.now();
    this.heldBytes += HELD_BYTES + e.url.length;
    this.held.push({ id: e.id, method: e.method, url: e.url, status: e.status, bytes: e.bytes, ms: at - e.start, at, key: e.key, lane: e.lane, ip: e.ip, aborted: e.aborted });
    if (this.waiting.length + this.heldBytes >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.flushLater, FLUSH_MS);
    }
  }

  /**
   * The line's `"path":…,"query":…`, redacted and escaped, kept by target (clients ask for
   * the same targets again and again: the redaction and escaping were a fifth of a line's
   * cost). As the core's parses (core/targets.ts), a target that could carry a key is never
   * kept, nor a long one, and the store is emptied when full.
   */
  private targets = new Map<string, string>();
  private target(url: string): string {
    const hit = this.targets.get(url);
    if (hit !== undefined) return hit;
    const { path, query } = redactTarget(url);
    const text = `"path":${JSON.stringify(path)}${query ? `,"query":${JSON.stringify(query)}` : ''}`;
    if (url.length > 512 || /key|%|alm_/i.test(url)) return text;
    if (this.targets.size >= 4096) this.targets.clear();
    this.targets.set(url, text);
    return text;
  }

  /**
   * The lines of the held requests, after the lines before them. `time` is the wall clock
   * when the request was logged (its monotonic `at`, shifted to the wall clock of the
   * flush); `id` (a checked token), `method` (an HTTP token), `key` (an id) and `ip` (an
   * address) need no JSON escaping; path and query do.
   */
  private format() {
    const held = this.held;
    if (!held.length) return;
    this.held = [];
    this.heldBytes = 0;
    // The wall clock of each request from its monotonic `at`, the offset read now: a clock
    // step (NTP, a resumed VM) shows in the next flush's lines, not only after a restart.
    const origin = Date.now() - performance.now();
    let text = '';
    for (let i = 0; i < held.length; i++) {
      const e = held[i];
      text += `{"time":"${this.iso(Math.floor(origin + e.at))}","id":"${e.id}","method":"${e.method}",${this.target(e.url)}`
        + `,"status":${e.status},"bytes":${decimal(e.bytes)},"ms":${hundredths(e.ms)}${e.key ? `,"key":${JSON.stringify(e.key)}` : ''}${e.lane ? `,"lane":"${e.lane}"` : ''}`
        + `${e.ip ? `,"ip":"${e.ip}"` : ''}${e.aborted ? ',"aborted":true' : ''}}\n`;
    }
    this.waiting += text;
  }

  private flushLater = () => {
    this.scheduled = false;
    this.flush();
  };

  /** Writes what waits: one write at a time. */
  private flush() {
    if (this.writing) return;
    this.format();
    // The count of lines dropped, once what was waiting has gone out.
    if (this.dropped && !this.draining && !this.stream?.writableLength) this.countDropped();
    if (!this.waiting) return;
    const text = this.waiting;
    this.waiting = '';
    if (this.opts.sink) return this.opts.sink(text);
    if (this.stream) return this.toStream(this.stream, text);
    this.writing = true;
    const buf = Buffer.from(text);
    const next = (err: NodeJS.ErrnoException | null, n: number, off: number) => {
      if (!err && off + n < buf.length) return write(this.fd, buf, off + n, buf.length - off - n, null, (e, m) => next(e, m, off + n));
      this.writing = false;
      if (err && err.code !== 'EAGAIN') this.opts.sample = 0; // stdout is gone (EPIPE): stop logging rather than fail
      if (this.waiting || this.held.length) this.flush();
    };
    write(this.fd, buf, 0, buf.length, null, (e, n) => next(e, n, 0));
  }

  /** A pipe: libuv writes what the pipe takes now and keeps the rest (counted in writableLength); 'drain' once it is out. */
  private toStream(stream: NonNullable<AccessLogOptions['stream']>, text: string) {
    if (stream.write(text) || this.draining) return;
    this.draining = true;
    stream.once('drain', () => {
      this.draining = false;
      if (this.dropped && !this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushLater);
      }
    });
  }

  private countDropped() {
    this.waiting += `{"time":"${new Date().toISOString()}","dropped":${this.dropped},"why":"the access log's reader did not keep up"}\n`;
    this.dropped = 0;
  }

  /** Writes what waits now, on this thread (at exit). */
  flushSync() {
    this.format();
    if (this.dropped) this.countDropped();
    if (!this.waiting) return;
    const text = this.waiting;
    this.waiting = '';
    if (this.opts.sink) return this.opts.sink(text);
    try {
      if (this.stream) this.stream.write(text);
      else if (process.stdout.fd === this.fd) process.stdout.write(text);
      else write(this.fd, text, () => {});
    } catch { /* exiting anyway */ }
  }
}

/** Whether a descriptor is a pipe or a socket (not a file or a terminal). */
function isPipe(fd: number) {
  try {
    const st = fstatSync(fd);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

/** Request ids: the client's X-Request-Id when it is a plain token, else this process's prefix and a counter. */
const PREFIX = randomBytes(4).toString('hex');
let counter = 0;
const TOKEN = /^[A-Za-z0-9._~:@+=/-]{1,128}$/;
export function requestId(given: string | string[] | undefined): string {
  if (typeof given === 'string' && TOKEN.test(given)) return given;
  return `${PREFIX}-${(++counter).toString(36)}`;
}
