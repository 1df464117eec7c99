/**
 * The local edge's front door (`npm run edge`): node:http in front of workerd's own
 * socket, passing requests and answers through byte for byte. At Cloudflare a front end
 * stands before every Worker; locally workerd's HTTP server stood alone, and it answered
 * what a Worker never sees in its own way (issue 39, item 5: `GET *`, absolute-form
 * targets, `CONNECT`, `Content-Length: -1` and unknown methods got 500/501 in plain text;
 * an HTTP/1.0 request without Host a 400 the Node server does not give). Behind this
 * front they get exactly what the Node server gives, from the same code
 * (server/node/transport.ts), and the front gives the local runner what workerd cannot:
 *
 * - a graceful stop (issue 38, item 4): `drain()` stops accepting, lets the answers in
 *   flight finish within a deadline, then cuts what is left;
 * - a runtime that died or restarts is answered 503 `not_ready` with Retry-After, not a
 *   refused connection (edge/local.ts restarts it);
 * - a `Date` header on every answer (node:http adds one; the Worker sends its own too).
 */
import { Agent, createServer, request as upstreamRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../server/http/errors.ts';
import type { CoreRequest, CoreResponse } from '../server/http/request.ts';
import { errorResponse } from '../server/http/respond.ts';
import { answerTransportErrors, serverLimits } from '../server/node/transport.ts';

export interface Front {
  server: Server;
  url: string;
  /** Answers being sent right now. */
  inFlight(): number;
  /** Stops accepting, waits up to `deadlineMs` for the answers in flight, then cuts the rest; resolves with how many were cut. */
  drain(deadlineMs: number): Promise<number>;
}

export interface FrontOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** workerd's socket now (it moves when the runtime restarts); undefined while there is none. */
  upstream: () => URL | undefined;
}

/** Fields that describe one connection, not the message: never passed through. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'upgrade', 'trailer']);

/** The request as the core's error envelope reads it (content negotiation of problem details). */
const asCore = (req: IncomingMessage): CoreRequest => ({
  method: req.method ?? 'GET', url: req.url ?? '/', header: (n) => { const v = req.headers[n]; return Array.isArray(v) ? v.join(', ') : v; },
});

function write(res: ServerResponse, r: CoreResponse) {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

/** Repeated request fields joined with ", ", as fetch's Headers in the Worker joins them anyway. */
function requestHeaders(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP.has(name)) continue;
    out[name] = name in out ? `${out[name]}, ${raw[i + 1]}` : raw[i + 1];
  }
  return out;
}

function responseHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  return out;
}

export async function startFront(o: FrontOptions): Promise<Front> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const flying = new Set<ServerResponse>();
  const notReady = (req: IncomingMessage, res: ServerResponse) =>
    write(res, errorResponse(asCore(req), new ApiError('not_ready', 'the local Workers runtime is starting again; retry in a second', undefined, { 'retry-after': '1' })));

  function handle(req: IncomingMessage, res: ServerResponse) {
    flying.add(res);
    res.on('close', () => flying.delete(res));
    // Node's own check answers a bare 400; the Node server answers with the envelope, so does this.
    if (!req.headers.host && req.httpVersionMinor >= 1) return write(res, errorResponse(asCore(req), new ApiError('bad_request', 'the Host header is required (HTTP/1.1)')));
    const up = o.upstream();
    if (!up) return notReady(req, res);
    // A target that is not a path (`*`, an absolute URL) names no endpoint on the Node
    // server (404, or 204/405 by method); workerd cannot take it at all (500). Sent on as a
    // path no route owns, it gets the same answer from the Worker.
    const target = req.url ?? '/';
    const path = target.startsWith('/') ? target : `/${encodeURIComponent(target)}`;
    const u = upstreamRequest({ host: up.hostname, port: up.port, method: req.method, path, headers: requestHeaders(req.rawHeaders), agent });
    u.on('response', (ur) => {
      res.writeHead(ur.statusCode ?? 502, responseHeaders(ur.rawHeaders));
      ur.pipe(res);
      ur.on('error', () => res.destroy());
    });
    u.on('error', () => (res.headersSent ? res.destroy() : notReady(req, res)));
    res.on('close', () => {
      if (!res.writableFinished) u.destroy();
    });
    req.pipe(u);
  }

  const server = createServer({ ...serverLimits(), keepAliveTimeout: 5000 }, handle);
  answerTransportErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    inFlight: () => flying.size,
    drain(deadlineMs) {
      server.close();
      server.closeIdleConnections();
      return new Promise((resolve) => {
        const started = Date.now();
        const check = setInterval(() => {
          // Connections that went idle after their answer (keep-alive) are closed as they do.
          server.closeIdleConnections();
          if (flying.size && Date.now() - started < deadlineMs) return;
          clearInterval(check);
          const cut = flying.size;
          server.closeAllConnections();
          agent.destroy();
          resolve(cut);
        }, 50);
      });
    },
  };
}
