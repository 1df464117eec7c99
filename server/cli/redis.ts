/**
 * `npm run keys` and `npm run review` with ALMANAC_REDIS_URL (server/state/redis-state.ts):
 * the same commands, run unchanged over a copy of the document read from Redis. A command
 * is replayed on a fresh copy if another writer got in between (compare-and-set), and its
 * output is printed only for the attempt that was written, so a key printed is a key
 * stored. Nothing is written for read-only commands. Redis unreachable: the command fails
 * with a message naming the URL (without its password) and a non-zero exit code.
 */
import { userInfo } from 'node:os';
import { stateDir } from '../../pipeline/paths.ts';
import { runKeys } from './keys-commands.ts';
import { runReview } from './review-commands.ts';
import type { AuditEvent, KeyDoc } from '../state/accounts.ts';
import { monthOf } from '../state/plans.ts';
import { KeyStore } from '../state/keys.ts';
import { connectState, keysDoc, reviewsDoc, seed } from '../state/redis-state.ts';
import { ReviewStore, withDecision, type ReviewDecision, type ReviewFile, type TokenReview } from '../state/reviews.ts';

const by = () => {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
};

async function withClient<T>(env: NodeJS.ProcessEnv, fn: (c: Awaited<ReturnType<typeof connectState>>) => Promise<T>): Promise<T> {
  const c = await connectState(env.ALMANAC_REDIS_URL!, (m) => console.error(m));
  try {
    await seed(c, stateDir(env), by(), (m) => console.error(m));
    return await fn(c);
  } finally {
    await c.close().catch(() => c.destroy());
  }
}

/** This month's counts and last uses of every project's meter, as redis-limits.ts keeps them (one round trip). */
async function countsOf(c: Awaited<ReturnType<typeof connectState>>, doc: KeyDoc) {
  const month = monthOf(Date.now());
  const meters = [...new Set(Object.values(doc.keys).map((k) => (k.project && doc.projects[k.project]?.meter) || k.id))];
  const got = await Promise.all(meters.flatMap((m) => [c.get(`almanac:m:${m}:${month}`), c.get(`almanac:l:${m}`)]));
  const seen = new Map(meters.map((m, i) => [m, { used: Number(got[2 * i] ?? 0), last: got[2 * i + 1] ? Number(got[2 * i + 1]) : undefined }]));
  return { used: (m: string) => seen.get(m)?.used ?? 0, lastUsed: (m: string) => seen.get(m)?.last };
}

/** `npm run keys -- …` against Redis; resolves to the exit code. */
export function keysViaRedis(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console.log): Promise<number> {
  return withClient(env, async (c) => {
    const doc = keysDoc(c);
    const counts = argv[0] === 'usage' ? await countsOf(c, (await doc.read()).doc) : undefined;
    const audit = argv[0] === 'audit' ? (await doc.log()).flatMap((l) => { try { return [JSON.parse(l) as AuditEvent]; } catch { return []; } }) : undefined;
    const { result } = await doc.change((d) => {
      const store = new KeyStore(stateDir(env), undefined, { external: true });
      store.adopt(d);
      store.auditEvents = audit;
      const lines: string[] = [];
      const code = runKeys(argv, env, (l) => lines.push(l), store, counts);
      const next = store.pending;
      return { next, result: { code, lines }, log: next?.last_events?.map((e) => JSON.stringify(e)) };
    });
    for (const l of result.lines) out(l);
    return result.code;
  });
}

/** A ReviewStore over a copy read from Redis whose decide() stages the change instead of writing a file. */
class StagedReviews extends ReviewStore {
  staged: ReviewFile | undefined;
  constructor(dir: string, private base: ReviewFile, version: number) {
    super(dir);
    this.adopt(base, `redis:${version}`);
  }

  override decide(token: string, decision: ReviewDecision, note: string, reviewer: string, now = new Date()): TokenReview {
    const { next, review } = withDecision(this.staged ?? this.base, token, decision, note, reviewer, now);
    this.staged = next;
    this.adopt(next, 'staged');
    return review;
  }
}

/** `npm run review -- …` against Redis; resolves to the exit code. */
export function reviewViaRedis(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console.log): Promise<number> {
  return withClient(env, async (c) => {
    const { result } = await reviewsDoc(c).change(async (d, v) => {
      const store = new StagedReviews(stateDir(env), d, v);
      const lines: string[] = [];
      const code = await runReview(argv, env, (l) => lines.push(l), store);
      return { next: store.staged, result: { code, lines } };
    });
    for (const l of result.lines) out(l);
    return result.code;
  });
}
