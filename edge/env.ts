/**
 * The Worker's bindings (edge/wrangler.jsonc) and the few Workers runtime types this code
 * uses, written out here rather than pulling in @cloudflare/workers-types, whose globals
 * clash with @types/node in one tsconfig. Only what edge/ calls is declared.
 */

import type { MeterStub } from './rpc.ts';

/** The R2 bucket holding releases in the dist layout (`current`, `releases/<id>/…`, `bundles/<id>/…`). */
export interface R2Bucket {
  get(key: string, options?: { range?: { offset: number; length?: number }; onlyIf?: { etagMatches?: string } }): Promise<R2Object | null>;
  head(key: string): Promise<{ size: number; etag: string; checksums?: { sha256?: ArrayBuffer } } | null>;
  put(key: string, value: ReadableStream | ArrayBuffer | ArrayBufferView | string | null, options?: { sha256?: string; httpMetadata?: Record<string, string> }): Promise<{ etag: string; size: number } | null>;
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{ objects: { key: string; size: number }[]; truncated: boolean; cursor?: string }>;
  delete(keys: string | string[]): Promise<void>;
  createMultipartUpload(key: string): Promise<R2MultipartUpload>;
  resumeMultipartUpload(key: string, uploadId: string): R2MultipartUpload;
}
export interface R2MultipartUpload {
  uploadId: string;
  uploadPart(partNumber: number, value: ReadableStream | ArrayBuffer | ArrayBufferView | string): Promise<{ partNumber: number; etag: string }>;
  complete(parts: { partNumber: number; etag: string }[]): Promise<{ size: number; etag: string }>;
  abort(): Promise<void>;
}
export interface R2Object {
  size: number;
  etag: string;
  body: ReadableStream;
  arrayBuffer(): Promise<ArrayBuffer>;
  text(): Promise<string>;
}

export interface KVNamespace {
  get(key: string, options?: { type?: 'text'; cacheTtl?: number }): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
}

export interface DurableObjectId { toString(): string }
export interface DurableObjectNamespace<T> {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): T;
}

export interface ExecutionContext {
  waitUntil(p: Promise<unknown>): void;
}

export interface Env {
  /** Releases, in the dist layout. */
  RELEASES: R2Bucket;
  /** The key index (key hash → key record and meter) and the reviews document, written by the sync. */
  KEYS: KVNamespace;
  /** One Durable Object per project: its slice of the keys document, its counts and its burst bucket (edge/meter.ts). */
  METER: DurableObjectNamespace<MeterStub>;
  /** Bearer token of the /_edge/ operator endpoints (publish, switch, sync); `wrangler secret put ADMIN_TOKEN`. */
  ADMIN_TOKEN?: string;
  /** Shard cache of an isolate, MiB (default 5/8 of ISOLATE_CACHE_MB; 128 MB is an isolate's whole memory). */
  CACHE_MB?: string;
  /** Composed bodies kept in an isolate, MiB (default 1/8 of ISOLATE_CACHE_MB, and as much for their compressed forms; the Cache API holds the rest). */
  RESPONSE_CACHE_MB?: string;
  /** Serialized study panels kept in an isolate, MiB (default 1/8 of ISOLATE_CACHE_MB). */
  STUDY_CACHE_MB?: string;
  /** Seconds an isolate trusts its copy of the live pointer, the key index and the reviews (default 5). */
  REFRESH_SECONDS?: string;
  /** All of an isolate's caches together, MiB (default 48): split by edge/budget.ts unless the three above are set. */
  ISOLATE_CACHE_MB?: string;
  /** "1": answers say their subrequests and R2 bytes (x-edge-subrequests, x-edge-r2-bytes); local benches only. */
  EXPOSE_COUNTS?: string;
}
