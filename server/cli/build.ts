/**
 * `npm run build`: the pipeline's build (pipeline/build.ts) with the documents only the
 * server can write into a release — the OpenAPI documents of both surfaces, generated
 * from the route tables with examples answered by the handlers over the release being
 * built, and the docs page that renders them (pipeline/docs.ts). The pipeline knows
 * nothing of the server; the server hands it these files.
 */
import { build as buildRelease, defaultWorkers, type BuildOptions } from '../../pipeline/build.ts';
import { isMain, parseCli } from '../../pipeline/cli.ts';
import { docsFiles } from '../../pipeline/docs.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI, OPENAPI_V1, packPath } from '../../pipeline/paths.ts';
import { STUDY_DATASET, type StudySummary } from '../../sources/scripture/study/dataset.ts';
import { studyPanelFiles } from '../api/v1/study-panels.ts';
import { layerTable } from '../api/v1/study-tokens.ts';
import type { OutFile } from '../../pipeline/shards.ts';
import type { Manifest } from '../../pipeline/writer.ts';
import { releaseOpenApi } from '../api/openapi.ts';
import { bundleProblem, readDownloads, writeBundle } from '../../pipeline/bundle.ts';
import { BUILD_HEAP_GROWING_PERCENT, applyHeapGrowth } from '../node/heap.ts';
import { DEFAULT_MAX_DROP } from '../../pipeline/gate.ts';
import { ALL_SOURCES } from '../../sources/index.ts';

/** openapi.json, openapi-v1.json and the docs page of the release in `at`. */
export async function releaseDocuments(at: { dir: string; manifest: Manifest }): Promise<OutFile[]> {
  const { platform, scripture } = await releaseOpenApi(at);
  return [
    { path: OPENAPI, content: Buffer.from(JSON.stringify(platform, null, 1) + '\n') },
    { path: OPENAPI_V1, content: Buffer.from(JSON.stringify(scripture, null, 1) + '\n') },
    ...docsFiles({ platform, scripture }),
    ...releasePanels(at),
  ];
}

/** The study panels as ready JSON (server/api/v1/study-panels.ts), from the study packs just written. */
function releasePanels(at: { dir: string; manifest: Manifest }): OutFile[] {
  const info = (at.manifest.datasets as Record<string, { summary?: StudySummary }>)[STUDY_DATASET] as { summary?: StudySummary } | undefined;
  if (!info?.summary) return [];
  // Nothing printed here: a build's caller owns its output (buildInChild reads its stdout as JSON).
  return studyPanelFiles(at, (n) => readFileSync(path.join(at.dir, packPath(STUDY_DATASET, n)), 'utf8').split('\n').filter(Boolean), layerTable(info.summary));
}

/** A complete release: the datasets and the server's documents. */
export const build = (opts: BuildOptions = {}) => buildRelease({ documents: releaseDocuments, ...opts });

/**
 * For the commands that build (build, start, nightly): V8 collects sooner while it builds
 * (BUILD_HEAP_GROWING_PERCENT, unless ALMANAC_HEAP_GROWING_PERCENT says otherwise; a server
 * started afterwards in the same process sets its own).
 */
export const buildHeapGrowth = (env: NodeJS.ProcessEnv = process.env) => applyHeapGrowth(env, process.execArgv, BUILD_HEAP_GROWING_PERCENT);

/**
 * Its downloads (pipeline/bundle.ts: SQLite databases and tar.gz archives), written before
 * the release goes live, so /apis/downloads lists them from its first request. An
 * identical rebuild keeps the ones it has.
 */
export const withDownloads = (env: NodeJS.ProcessEnv = process.env, log?: (l: string) => void): BuildOptions['beforeLive'] => async (dist, release) => {
  const say = log ?? console.log;
  const problem = await bundleProblem(dist, release);
  if (!problem) {
    say(`downloads of ${release}: already written, each file checked against its sha256, kept`);
    return;
  }
  // Say why when there were downloads to keep (a first write needs no reason).
  if (readableDownloads(dist, release)) say(`downloads of ${release}: written again: ${problem}`);
  await writeBundle({ env: { ...env, ALMANAC_DIST: dist }, release, log });
};

const readableDownloads = (dist: string, release: string) => {
  try {
    return readDownloads(dist, release) !== null;
  } catch {
    return true;
  }
};

if (isMain(import.meta.url)) {
  const { values } = parseCli('build', `usage: npm run build [-- --no-downloads] [--accept <dataset>]... [--max-drop 0.1]
  builds dist/ from npm dependencies and the fetch cache, with the release's downloads (SQLite and tar.gz) unless --no-downloads.
  The new release goes live only if no live dataset is dropped or falls by more than --max-drop (default ${DEFAULT_MAX_DROP}) and no dataset
  lacks an npm package; --accept lets one dataset through (repeatable). Otherwise it says why, exits 1 and the live release stays.`, {
    'no-downloads': { type: 'boolean', default: false }, accept: { type: 'string', multiple: true }, 'max-drop': { type: 'string' },
  });
  const maxDrop = values['max-drop'] === undefined ? DEFAULT_MAX_DROP : Number(values['max-drop']);
  const known = new Set(ALL_SOURCES.map((s) => s.id));
  const unknown = (values.accept ?? []).filter((a) => !known.has(a));
  if (!(maxDrop >= 0 && maxDrop <= 1) || unknown.length) {
    console.error(`build: ${unknown.length ? `--accept: no dataset ${unknown.map((u) => `'${u}'`).join(', ')}` : '--max-drop must be a fraction from 0 to 1'}`);
    process.exit(2);
  }
  Promise.resolve().then(() => {
    buildHeapGrowth();
    return build({ workers: defaultWorkers(), guard: { maxDrop, accept: values.accept ?? [] }, ...(values['no-downloads'] ? {} : { beforeLive: withDownloads() }) });
  }).catch((err) => {
    console.error(`build failed, live release unchanged: ${err.message}`);
    process.exit(1);
  });
}
