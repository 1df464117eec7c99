/**
 * A request and a response as the app core sees them, whatever carries them: node:http
 * (server/node/server.ts) or a Worker's fetch handler (edge/worker.ts). Each adapter
 * turns its runtime's request into a CoreRequest and writes the CoreResponse back; the
 * core never touches a socket.
 */

export interface CoreRequest {
  /** GET, HEAD, OPTIONS, … as sent (upper case). */
  method: string;
  /** The request target: path and query as sent (`/apis/elements/Fe?x=1`). */
  url: string;
  /**
   * A header's value (name in lower case), or undefined. Repeated fields arrive joined
   * with ", " (RFC 9110 §5.3), as fetch's Headers.get gives them; node's adapter joins
   * them the same way, so both runtimes see the same value.
   */
  header(name: string): string | undefined;
  /** Whether the client has gone (its connection closed): a request still waiting for a slot is then dropped. */
  gone?(): boolean;
  /** Set by the adapter: the request id (X-Request-Id), named in every log line about the request. */
  readonly id?: string;
  /** Set by the core for the adapter's access log: the key id it found (never the key), and the request's cost class. */
  keyId?: string;
  cost?: string;
}

/** Headers as a flat [name, value, …] list: node:http writes it without building objects (this path runs on every request). */
export type HeaderList = string[];

export interface CoreResponse {
  status: number;
  headers: HeaderList;
  /** Absent for 204, 304 and HEAD (their Content-Length, when given, is in `headers`). */
  body?: Buffer | string;
  /** A streamed body instead (a download): whatever the release reader's `stream` gave, which the adapter pipes. */
  stream?: unknown;
}
