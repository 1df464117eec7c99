/**
 * The commands of `npm run review -- <command>` (server/cli/review.ts is the entry): the
 * token review workflow over the live release's study layers and the review store in
 * ALMANAC_STATE_DIR (server/state/reviews.ts).
 *
 *   list [--status review-needed] [--source align-asv] [--book gen] [--limit 20]
 *        tokens in the queue (default status review-needed), with their review state
 *   verify <token-id> --note "…" [--reviewer name]
 *   reject <token-id> --note "…" [--reviewer name]
 *   show <token-id>      the token as the API serves it, and its review history
 *
 * Token ids are `<layer>:<layer reference>:<position>`, as the API gives them
 * (e.g. `align-asv:gen.1.1:3`, `oshb-hebrew:mal.3.19:1`).
 */
import { parseArgs } from 'node:util';
import { parseOrUsage, wantsHelp } from '../../pipeline/cli.ts';
import { distDir, stateDir } from '../../pipeline/paths.ts';
import { STUDY_DATASET, type StudyRecord, type StudySummary } from '../../sources/scripture/study/dataset.ts';
import { ALIGNMENT_OF } from '../../sources/scripture/study/english.ts';
import { STATUSES } from '../../sources/scripture/study/tokens.ts';
import { fsRelease } from '../release/fs-reader.ts';
import { ReviewStore } from '../state/reviews.ts';
import { layerTable, panelsOf } from '../api/v1/study-tokens.ts';

const USAGE = `usage: npm run review -- <command>
  list [--status <${STATUSES.join('|')}>] [--source <layer>] [--book <slug>] [--limit n]
  verify <token-id> --note "…" [--reviewer name]
  reject <token-id> --note "…" [--reviewer name]
  show <token-id>`;

const ALL = { verifiedOnly: false, includeGenerated: true };

function openStudy(env: NodeJS.ProcessEnv) {
  const release = fsRelease(distDir(env));
  const info = release.datasets.get(STUDY_DATASET);
  if (!info) throw new Error('the live release has no study layers');
  const summary = info.summary as StudySummary;
  return { release, info, summary, layers: layerTable(summary) };
}

/** The record holding a token: its layer reference, or the Vulgate/Hebrew alias the build recorded. */
async function findToken(env: NodeJS.ProcessEnv, reviews: ReviewStore, id: string) {
  const m = /^([a-z0-9-]+):([0-9a-z]+\.\d+\.\d+):(\d+)$/.exec(id);
  if (!m) throw new Error(`'${id}' is not a token id (<layer>:<book.chapter.verse>:<position>)`);
  const s = openStudy(env);
  if (!s.layers.has(m[1])) throw new Error(`no layer '${m[1]}' in the live release (${[...s.layers.keys()].join(', ')})`);
  const ord = (await s.release.lookup(STUDY_DATASET, `${m[1]}:${m[2]}`)) ?? (await s.release.lookup(STUDY_DATASET, m[2]));
  for (const o of ord === undefined ? [] : [ord]) {
    const rec = JSON.parse((await s.release.record(STUDY_DATASET, o)).toString('utf8')) as StudyRecord;
    for (const slug of [ALIGNMENT_OF[m[1]] ?? '']) {
      for (const p of panelsOf(rec, slug, rec.id, s.layers, ALL, reviews)) {
        const tok = (p.tokens as Record<string, unknown>[]).find((t) => t.id === id);
        if (tok) return tok;
      }
    }
  }
  throw new Error(`no token '${id}' in the live release`);
}

/** `store`: reviews held elsewhere (ALMANAC_REDIS_URL: server/redis-cli.ts). */
export async function runReview(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console.log, store?: ReviewStore): Promise<number> {
  if (wantsHelp(argv)) {
    out(USAGE);
    return 0;
  }
  const { values, positionals } = parseOrUsage(USAGE, () => parseArgs({
    args: argv, allowPositionals: true,
    options: { status: { type: 'string' }, source: { type: 'string' }, book: { type: 'string' }, limit: { type: 'string' }, note: { type: 'string' }, reviewer: { type: 'string' } },
  }));
  const [cmd, id] = positionals;
  const reviews = store ?? new ReviewStore(stateDir(env));
  switch (cmd) {
    case 'list': {
      const status = values.status ?? 'review-needed';
      if (!(STATUSES as readonly string[]).includes(status)) throw new Error(`--status must be one of ${STATUSES.join(', ')}`);
      const limit = Number(values.limit ?? 20);
      const s = openStudy(env);
      if (values.source && !s.layers.has(values.source)) throw new Error(`--source must be one of ${[...s.layers.keys()].join(', ')}`);
      let shown = 0;
      // A generated layer shows only in its own translation's study: expand just the views needed.
      const slugs = values.source ? [ALIGNMENT_OF[values.source] ?? ''] : ['', ...Object.values(ALIGNMENT_OF)];
      for (let o = 0; o < s.info.records && shown < limit; o++) {
        const rec = JSON.parse((await s.release.record(STUDY_DATASET, o)).toString('utf8')) as StudyRecord;
        if (values.book && rec.book !== values.book.toLowerCase()) continue;
        for (const slug of slugs) {
          for (const p of panelsOf(rec, slug, rec.id, s.layers, ALL, reviews)) {
            if ((values.source && p.layer !== values.source) || (slug && !String(p.layer).startsWith('align-'))) continue;
            for (const t of p.tokens as Record<string, unknown>[]) {
              if (t.study_status !== status || shown >= limit) continue;
              shown++;
              out(`${t.id}\t${t.text}\t${t.strong ?? ''}\t${t.confidence}\t${t.review_status}`);
            }
          }
        }
      }
      out(`${shown} token(s) shown (status ${status}${values.source ? `, source ${values.source}` : ''}${values.book ? `, book ${values.book}` : ''}; --limit ${limit})`);
      return 0;
    }
    case 'verify':
    case 'reject': {
      if (!id) throw new Error(USAGE);
      await findToken(env, reviews, id); // refuse ids the release does not have
      const r = reviews.decide(id, cmd === 'verify' ? 'verified' : 'rejected', values.note ?? '', values.reviewer ?? process.env.USER ?? 'reviewer');
      out(`${r.decision} ${r.token} at ${r.at} by ${r.reviewer}: ${r.note}`);
      return 0;
    }
    case 'show': {
      if (!id) throw new Error(USAGE);
      out(JSON.stringify(await findToken(env, reviews, id), null, 1));
      return 0;
    }
    default:
      out(USAGE);
      return cmd ? 1 : 0;
  }
}

