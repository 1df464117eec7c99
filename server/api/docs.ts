/**
 * `/docs`: the docs page the build wrote into the release (pipeline/docs.ts). Public: no
 * key, never counted, like the OpenAPI documents it renders. Files come from the live
 * release through its manifest (checksummed on first read, cached), in the best
 * precompressed encoding the client accepts.
 *
 * Cache policy: assets are named by content hash, so `public, max-age=31536000,
 * immutable`; index.html keeps its name across releases, so a short public max-age.
 */
import { DOCS_DIR, DOCS_INDEX } from '../../pipeline/paths.ts';
import { ApiError } from '../http/errors.ts';
import type { Release } from '../release/release.ts';
import type { CoreRequest, CoreResponse } from '../http/request.ts';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
  txt: 'text/plain; charset=utf-8',
};
const HASHED = /\.[0-9a-f]{16}\.[a-z]+$/;
/**
 * The page loads only its own scripts (no inline script); Swagger UI sets inline styles and
 * uses data: images, and fetches the OpenAPI documents from this origin.
 */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** The release path a request path names, or null when it is not under /docs. */
export function docsPath(rawPath: string): string | null {
  if (rawPath === '/docs' || rawPath === '/docs/') return DOCS_INDEX;
  if (!rawPath.startsWith('/docs/')) return null;
  const name = rawPath.slice('/docs/'.length);
  // One segment of plain characters: nothing to decode, no way out of docs/.
  return /^[A-Za-z0-9._-]+$/.test(name) && !name.startsWith('.') ? `${DOCS_DIR}/${name}` : `${DOCS_DIR}/.invalid`;
}

export async function docsResponse(req: CoreRequest, release: Release, rel: string): Promise<CoreResponse> {
  const entry = release.entry(rel);
  if (!entry) {
    throw new ApiError('not_found', rel === DOCS_INDEX ? 'this release has no docs page (built before issue 12, or an offline bundle)' : 'no such file of the docs page');
  }
  const ext = rel.slice(rel.lastIndexOf('.') + 1);
  const accept = req.header('accept-encoding') ?? '';
  const encoding = entry.br && /\bbr\b/.test(accept) ? 'br' : entry.gzip && /\bgzip\b/.test(accept) ? 'gzip' : '';
  // Each representation has its own ETag (a cache must not answer a gzip request with br bytes).
  const etag = `"${entry.sha256.slice(0, 32)}${encoding ? `-${encoding}` : ''}"`;
  const headers: string[] = [
    'content-type', TYPES[ext] ?? 'application/octet-stream',
    'cache-control', HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    'x-content-type-options', 'nosniff',
    'etag', etag, 'vary', 'Accept-Encoding',
    ...(ext === 'html' ? ['content-security-policy', CSP, 'referrer-policy', 'no-referrer'] : []),
  ];
  const inm = req.header('if-none-match');
  if (inm && inm.split(',').some((t) => [etag, `W/${etag}`, '*'].includes(t.trim()))) return { status: 304, headers };
  if (encoding) headers.push('content-encoding', encoding);
  const body = await release.file(rel, encoding);
  headers.push('content-length', String(body.length));
  return req.method === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body };
}
