/**
 * What the app core (core/app.ts) is given by an adapter and what it gives back: its
 * options (the release, the state, a shared body cache, the lanes' gate) and its interface.
 */
import type { DatasetSource } from '../../sources/contract.ts';
import type { Coding } from '../http/encoding.ts';
import type { ApiError } from '../http/errors.ts';
import type { CoreRequest, CoreResponse } from '../http/request.ts';
import type { Release } from '../release/release.ts';
import type { Gate } from './gate.ts';
import type { StateStore } from './state.ts';

/**
 * A second, shared cache of composed bodies (the edge: the Cache API of its location),
 * keyed by the same key as the core's own (release id, staleness, path and query — never
 * a credential) plus the coding the client wants. Only 200s of cacheable routes go in.
 */
export interface SharedBodies {
  get(key: string, coding: Coding): Promise<{ body: Buffer; coding: Coding; hash: string } | undefined>;
  put(key: string, coding: Coding, entry: { body: Buffer | string; coding: Coding; hash: string }): Promise<void>;
}

export interface CoreOptions {
  /** The live release (the adapter keeps it current: a switch of `current` takes effect from the next request). */
  release: () => Release | Promise<Release>;
  state: StateStore;
  /** Where unexpected faults are reported (never with credentials). */
  log: (msg: string) => void;
  /** No keys and no counting (`serve --open`): every request acts as OPEN_KEY. */
  open?: boolean;
  /** Test-only datasets served beside the real ones (their routes are added to /apis). */
  extraSources?: DatasetSource<any>[];
  /** Budget of the in-memory cache of composed bodies (default 64 MiB). */
  responseCacheBytes?: number;
  shared?: SharedBodies;
  /** Admission by cost class (the Node server's lanes, node/admission.ts); none: every request starts at once. */
  gate?: Gate;
  /** Why the server is not ready for traffic (/readyz: draining, warming, state not writable); none: always ready. */
  ready?: () => string[];
}


/** Work a response leaves behind (a shared-cache write): the edge hands it to waitUntil; Node lets it run. */
export type After = (p: Promise<unknown>) => void;

export interface Core {
  handle(req: CoreRequest, after?: After): Promise<CoreResponse>;
  /**
   * The same answer, returned as it is when nothing had to wait (the Node adapter writes it
   * without a promise's round trip: issue 41); a promise when something did.
   */
  respond(req: CoreRequest, after?: After): CoreResponse | Promise<CoreResponse>;
  /** The envelope for an error found before the core (the Node adapter's transport checks). */
  error(req: CoreRequest, err: ApiError): CoreResponse;
  /** A GET of `url` composed and br-encoded as a request's would be, nothing billed or cached (the study warm-up). */
  rehearse(url: string, uncached: boolean): Promise<void>;
}
