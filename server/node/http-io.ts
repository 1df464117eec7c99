/**
 * node:http ↔ the app core: a request as the core reads it (NodeRequest, which also carries
 * what the access log says about it), a CoreResponse written back, (the envelope for requests
 * node:http keeps from the handler is transport.ts's). Only translation:
 * what to answer is the core's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { CoreRequest, CoreResponse } from '../http/request.ts';
import type { AccessLog, Entry } from './access-log.ts';

/** A node:http request as the core reads it, and the access log's line about it. */
export class NodeRequest implements CoreRequest, Entry {
  keyId?: string;
  cost?: string;
  status = 0;
  bytes = 0;
  start = 0;
  aborted?: boolean;
  constructor(readonly req: IncomingMessage, readonly id: string) {}
  get method() {
    return this.req.method ?? 'GET';
  }
  get url() {
    return this.req.url ?? '/';
  }
  get key() {
    return this.keyId;
  }
  get lane() {
    return this.cost;
  }
  get ip() {
    return this.req.socket.remoteAddress;
  }
  gone() {
    return this.req.socket.destroyed;
  }
  header(name: string): string | undefined {
    // Node keeps only the first of repeated Authorization (and some other) fields; the
    // core must see every one (two different keys are a conflict, not "the first"), so
    // credential headers are joined from the raw lines as fetch's Headers joins them.
    if (name === 'authorization' || name === 'x-service-key' || name === 'x-scripture-key') return joinedRaw(this.req.rawHeaders, name);
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }
}

/** Every field line named `name` (lower case), joined with ", " (a scan of rawHeaders: no per-request object of every header). */
function joinedRaw(raw: string[], name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length !== name.length || raw[i].toLowerCase() !== name) continue;
    out = out === undefined ? raw[i + 1] : `${out}, ${raw[i + 1]}`;
  }
  return out;
}

/**
 * Writes a CoreResponse: headers as the flat list node:http takes (plus X-Request-Id), then
 * the body or the stream. `closing`: the server is draining, so the connection closes after
 * this response (Connection: close) and the client reconnects to a server that stays.
 */
export function writeResponse(res: ServerResponse, r: NodeRequest, out: CoreResponse, closing: boolean, counting: boolean) {
  r.status = out.status;
  if (res.destroyed) return; // the client left (a request dropped while it waited)
  out.headers.push('x-request-id', r.id);
  if (closing) res.shouldKeepAlive = false;
  res.writeHead(out.status, out.headers);
  if (out.stream) {
    const s = out.stream as Readable;
    s.on('error', () => res.destroy());
    if (counting) s.on('data', (c: Buffer) => (r.bytes += c.length));
    s.pipe(res);
  } else {
    if (counting && out.body) r.bytes = typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.length;
    res.end(out.body);
  }
}

const REQ = Symbol('almanac request');

/** A streamed response's access log line, when its last byte is out or its client gone (a function of `this`: no closure per request). */
function logged(this: ServerResponse & { [REQ]?: { r: NodeRequest; log: AccessLog } }) {
  const { r, log } = this[REQ]!;
  if (!this.writableFinished) {
    r.aborted = true;
    if (!r.status) r.status = 499;
  }
  log.log(r);
}

/**
 * Writes the core's answer, then its access log line (`log`: when on). A body in hand is
 * logged at once, as node:http has taken it whole (a 'close' listener per response, for
 * every cached lookup, was node's event machinery on the hot path: issue 41); a stream (a
 * download) when its last byte is out or its client gone. A client gone before its answer
 * was written is logged aborted, with the core's status (499 when it left while waiting).
 */
export function answerLogged(res: ServerResponse, r: NodeRequest, out: CoreResponse, closing: boolean, log: AccessLog | undefined) {
  writeResponse(res, r, out, closing, !!log);
  if (!log) return;
  if (res.destroyed) r.aborted = true;
  else if (out.stream) {
    (res as ServerResponse & { [REQ]?: { r: NodeRequest; log: AccessLog } })[REQ] = { r, log };
    return void res.once('close', logged);
  }
  log.log(r);
}
