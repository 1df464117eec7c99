/**
 * The docs page (`/docs`), written into every release at build time: Swagger UI
 * (swagger-ui-dist, Apache-2.0) rendering both OpenAPI documents of the release, the
 * platform's (`/apis/openapi.json`) and the scripture API's (`/api/v1/openapi`), one
 * after the other on one page with a table of contents, so every operation of both
 * surfaces is on one page (find-in-page works across both).
 *
 * Why Swagger UI and not Redoc or Scalar: swagger-ui-dist is the prebuilt browser bundle
 * alone (one dependency, whose install script npm does not run), while redoc and
 * @scalar/api-reference pull React or Vue and dozens of packages into a production
 * install. The release holds copies of the few files the page needs.
 *
 * Every asset is named by its content hash (`docs/<name>.<hash>.<ext>`), so it can be
 * cached forever; only `docs/index.html` keeps its name. The page has no inline script
 * (a strict Content-Security-Policy can be sent with it).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { sha256 } from './inputs.ts';
import { DOCS_DIR, DOCS_INDEX } from './paths.ts';
import type { OutFile } from './shards.ts';

const require = createRequire(import.meta.url);

/** Where swagger-ui-dist is installed (resolved from this package, so `npm ci --omit=dev` has it). */
const uiDir = () => path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The two documents the page renders: the URL the server answers and a section title. */
export const DOCS_SECTIONS = [
  { id: 'platform', title: 'Reference-data platform (/apis)', url: '/apis/openapi.json' },
  { id: 'scripture', title: 'Scripture text and word study (/api/v1)', url: '/api/v1/openapi' },
] as const;

const hashed = (name: string, ext: string, content: Buffer) => `${DOCS_DIR}/${name}.${sha256(content).slice(0, 16)}.${ext}`;

interface DocSummary { title: string; version: string; operations: number }

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The files of the docs page. `docs` are the two documents as written into the release
 * (their titles, versions and operation counts go into the page's static text, so the page
 * says what it documents before its script runs).
 */
export function docsFiles(docs: { platform: Record<string, any>; scripture: Record<string, any> }): OutFile[] {
  const dir = uiDir();
  const version = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
  const vendor = (file: string) => readFileSync(path.join(dir, file));
  // The bundle's trailing comment names its licence file; keep that file under that name.
  const bundle = vendor('swagger-ui-bundle.js');
  const css = vendor('swagger-ui.css');
  const icon = vendor('favicon-32x32.png');
  const init = Buffer.from(initializer());
  const style = Buffer.from(PAGE_CSS);
  const files: OutFile[] = [
    { path: hashed('swagger-ui-bundle', 'js', bundle), content: bundle },
    { path: hashed('swagger-ui', 'css', css), content: css },
    { path: hashed('favicon', 'png', icon), content: icon },
    { path: hashed('init', 'js', init), content: init },
    { path: hashed('page', 'css', style), content: style },
    { path: `${DOCS_DIR}/swagger-ui-bundle.js.LICENSE.txt`, content: vendor('swagger-ui-bundle.js.LICENSE.txt') },
    { path: `${DOCS_DIR}/swagger-ui-LICENSE.txt`, content: Buffer.concat([vendor('LICENSE'), Buffer.from('\n'), vendor('NOTICE')]) },
  ];
  const [bundlePath, cssPath, iconPath, initPath, stylePath] = files.map((f) => `/${f.path}`);
  const summary = (d: Record<string, any>): DocSummary => ({
    title: String(d.info?.title ?? ''), version: String(d.info?.version ?? ''),
    operations: Object.values<Record<string, unknown>>(d.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0),
  });
  const sums = { platform: summary(docs.platform), scripture: summary(docs.scripture) };
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Almanac API documentation</title>
<link rel="icon" type="image/png" href="${iconPath}">
<link rel="stylesheet" href="${cssPath}">
<link rel="stylesheet" href="${stylePath}">
</head>
<body>
<header class="almanac-head">
<h1>Almanac API documentation</h1>
<p>Two read-only APIs on one server. Data endpoints need a key: <code>X-Service-Key</code> or <code>Authorization: Bearer</code> under <code>/apis</code>; <code>Authorization: Bearer</code>, <code>X-Scripture-Key</code> or <code>?key=</code> under <code>/api/v1</code>. These pages, the OpenAPI documents and <code>/healthz</code> need none.</p>
<nav><ul>
${DOCS_SECTIONS.map((s) => `<li><a href="#${s.id}">${escapeHtml(s.title)}</a>: ${escapeHtml(sums[s.id].title)} ${escapeHtml(sums[s.id].version)}, ${sums[s.id].operations} operations (<a href="${s.url}">OpenAPI document</a>)</li>`).join('\n')}
</ul></nav>
<p class="almanac-small">Rendered by Swagger UI ${escapeHtml(version)} (<a href="/${DOCS_DIR}/swagger-ui-LICENSE.txt">Apache-2.0</a>).</p>
</header>
${DOCS_SECTIONS.map((s) => `<section class="almanac-doc" aria-labelledby="${s.id}-title"><h2 id="${s.id}-title"><a id="${s.id}"></a>${escapeHtml(s.title)}</h2><div id="${s.id}-ui" data-url="${s.url}"></div></section>`).join('\n')}
<script src="${bundlePath}" charset="utf-8"></script>
<script src="${initPath}" charset="utf-8"></script>
</body>
</html>
`;
  files.push({ path: DOCS_INDEX, content: Buffer.from(html) });
  return files;
}

/** One Swagger UI per section; each fetches its document from this server (same origin, no key). */
function initializer() {
  return `/* Almanac docs page: one Swagger UI per OpenAPI document (pipeline/docs.ts). */
window.addEventListener('load', function () {
  document.querySelectorAll('[data-url]').forEach(function (el) {
    SwaggerUIBundle({
      url: el.getAttribute('data-url'),
      domNode: el,
      deepLinking: false,
      displayOperationId: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: -1,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout'
    });
  });
});
`;
}

const PAGE_CSS = `body { margin: 0; font-family: sans-serif; }
.almanac-head { max-width: 1460px; margin: 0 auto; padding: 16px 20px 0; }
.almanac-head h1 { font-size: 28px; margin: 8px 0; }
.almanac-small { font-size: 12px; color: #555; }
.almanac-doc { border-top: 4px solid #1b1b1b; margin-top: 24px; }
.almanac-doc > h2 { max-width: 1460px; margin: 16px auto 0; padding: 0 20px; font-size: 22px; }
`;
