/**
 * `/`, where a newcomer or a browser lands (issue 28; issue 38, item 9): the links to
 * everything public and which credential each surface reads. API clients get JSON (the
 * route's handler, documented in the OpenAPI document); a browser, whose Accept prefers
 * text/html, gets the same links as a small HTML page. Both vary on Accept.
 */
import { CORS } from '../http/respond.ts';
import { acceptQ } from '../http/respond.ts';
import type { CoreRequest, CoreResponse } from '../http/request.ts';
import type { Handler } from './handlers.ts';

const NAME = 'almanac: reference datasets under /apis, scripture text and word study under /api/v1';
const LINKS = {
  docs: '/docs/', platform_openapi: '/apis/openapi.json', scripture_openapi: '/api/v1/openapi', health: '/healthz', ready: '/readyz',
  catalogue: '/apis', translations: '/api/v1/translations', downloads: '/apis/downloads',
};
const CREDENTIALS = {
  '/apis': 'X-Service-Key: <key> or Authorization: Bearer <key>',
  '/api/v1': 'Authorization: Bearer <key>, X-Scripture-Key: <key> or ?key=<key>',
};

export const frontDoor: Handler = (ctx) => ({
  kind: 'json',
  body: JSON.stringify({ name: NAME, release: ctx.release.id, links: LINKS, credentials: CREDENTIALS }),
});

/** A browser: text/html named in Accept and preferred to application/json (a tie, `*\/*` alone or no Accept: JSON). */
export function prefersHtml(req: CoreRequest): boolean {
  const accept = req.header('accept');
  if (!accept || !accept.includes('text/html')) return false;
  const html = acceptQ(accept, 'text/html');
  return html > 0 && html > acceptQ(accept, 'application/json');
}

const TITLES: Record<keyof typeof LINKS, string> = {
  docs: 'Docs page: both APIs, every operation, with examples', platform_openapi: 'OpenAPI document of /apis', scripture_openapi: 'OpenAPI document of /api/v1',
  health: 'Liveness (/healthz)', ready: 'Readiness (/readyz)', catalogue: 'Dataset catalogue (key needed)', translations: 'Translations (key needed)', downloads: 'Offline downloads (key needed)',
};
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** No script, no outside resource: the page is its own bytes and one inline style. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function frontDoorHtml(req: CoreRequest, releaseId: string, vary: string): CoreResponse {
  const links = (Object.keys(LINKS) as (keyof typeof LINKS)[]).map((k) => `<li><a href="${LINKS[k]}">${esc(TITLES[k])}</a> <code>${LINKS[k]}</code></li>`).join('\n');
  const creds = Object.entries(CREDENTIALS).map(([s, how]) => `<li><code>${s}</code>: ${esc(how)}</li>`).join('\n');
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>almanac</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}code{font-size:.9em}</style></head>
<body>
<h1>almanac</h1>
<p>${esc(NAME)}. Live release <code>${esc(releaseId)}</code>.</p>
<ul>
${links}
</ul>
<h2>Keys</h2>
<p>Every request under <code>/apis</code> and <code>/api/v1</code> needs a key, sent as:</p>
<ul>
${creds}
</ul>
<p>API clients get this page as JSON (<code>Accept: application/json</code>).</p>
</body></html>
`;
  const headers = [...CORS, 'content-type', 'text/html; charset=utf-8', 'cache-control', 'no-store', 'vary', vary,
    'x-content-type-options', 'nosniff', 'content-security-policy', CSP, 'referrer-policy', 'no-referrer', 'content-length', String(Buffer.byteLength(body))];
  return req.method === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body };
}
