/**
 * Liveness and readiness (issue 38, item 7), public and never counted. /healthz: the process
 * answers (200 even when `degraded`: a corrupt file answers 503 itself, the rest is served).
 * /readyz: whether this server should be sent traffic now.
 */
import { ApiError } from '../http/errors.ts';
import type { Handler } from './handlers.ts';

/** `degraded` when a release file failed its checksum (those files answer 503 release_corrupt). */
export const health: Handler = (ctx) => {
  const corrupt = [...ctx.release.corrupt];
  return { kind: 'json', body: JSON.stringify(corrupt.length ? { status: 'degraded', release: ctx.release.id, corrupt_files: corrupt } : { status: 'ok', release: ctx.release.id }) };
};

/**
 * Readiness (issue 38, item 7): 200 when the server should be sent traffic; 503 not_ready
 * naming why while it drains for a shutdown, warms its search indexes, or cannot count
 * (a full or read-only state folder, Redis unreachable). Liveness stays /healthz.
 */
export const ready: Handler = (ctx) => {
  const why = ctx.ready?.() ?? [];
  if (why.length) throw new ApiError('not_ready', why.join('; '), { reasons: why, release: ctx.release.id }, { 'retry-after': '5' });
  return { kind: 'json', body: JSON.stringify({ status: 'ready', release: ctx.release.id }) };
};
