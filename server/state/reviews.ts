/**
 * Token reviews: a person verifies or rejects a study token with a note. Stored in one
 * small JSON file under ALMANAC_STATE_DIR (`reviews.json`), replaced atomically (temp
 * file, fsync, rename: writeFileDurable), so a kill -9 leaves the old or the new file,
 * never half of one. Every change is a read-modify-write under `reviews.lock`: two
 * review commands at once cannot lose each other's change; the second waits (up to 5 s)
 * and then refuses. It is the state folder's one lock kind (state/lock.ts, the same as
 * `keys.lock`): a file created with O_EXCL holding
 * `<pid> <host> <time>`, taken over once its pid is gone (a killed reviewer), moved
 * aside and re-checked so two processes taking over the same stale lock cannot both
 * proceed.
 *
 * The server re-reads the file when its mtime or size changes (a stat per study
 * request), so a review shows in the API at once, without a rebuild.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { withLock } from './lock.ts';

export type ReviewDecision = 'verified' | 'rejected';
export interface ReviewEvent { decision: ReviewDecision; note: string; reviewer: string; at: string }
export interface TokenReview extends ReviewEvent { token: string; history: ReviewEvent[] }
export interface ReviewFile { version: 1; reviews: Record<string, TokenReview> }

/** How long a review command waits for another reviewer's write before refusing. */
const LOCK_WAIT_MS = 5000;

/** Runs `fn` holding `<dir>/reviews.lock`; throws LockBusy (naming the holder) if another live process holds it past the wait. */
export const withReviewLock = <T>(dir: string, fn: () => T): T => withLock(path.join(dir, 'reviews.lock'), fn, LOCK_WAIT_MS);

export class ReviewStore {
  readonly file: string;
  private data: ReviewFile = { version: 1, reviews: {} };
  private stamp = '';

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'reviews.json');
    this.reload();
  }

  /** Reviews held elsewhere (ALMANAC_REDIS_URL, state/redis-state.ts): reload() reads no file. */
  external = false;

  /** Serve these reviews (from Redis) from now on; `version` keys the cached study panels. */
  adopt(data: ReviewFile, version: string) {
    this.data = data;
    this.stamp = version;
    this.external = true;
  }

  /** Re-reads the file if it changed (mtime or size) since the last read. */
  reload() {
    if (this.external) return;
    if (!existsSync(this.file)) {
      this.data = { version: 1, reviews: {} };
      this.stamp = '';
      return;
    }
    const st = statSync(this.file);
    const stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    if (stamp === this.stamp) return;
    const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as ReviewFile;
    if (parsed.version !== 1 || typeof parsed.reviews !== 'object') throw new Error(`${this.file}: not a reviews file`);
    this.data = parsed;
    this.stamp = stamp;
  }

  /** Changes whenever the file does: part of the key of cached study panels. */
  get version(): string {
    return this.stamp;
  }

  get(token: string): TokenReview | undefined {
    return Object.hasOwn(this.data.reviews, token) ? this.data.reviews[token] : undefined;
  }

  all(): TokenReview[] {
    return Object.values(this.data.reviews);
  }

  /** Records a decision (read-modify-write under the lock) and returns the token's review. */
  decide(token: string, decision: ReviewDecision, note: string, reviewer: string, now = new Date()): TokenReview {
    if (!note.trim()) throw new Error('a review needs a note (--note "…")');
    return withReviewLock(this.dir, () => {
      this.stamp = '';
      this.reload();
      const event: ReviewEvent = { decision, note: note.trim(), reviewer, at: now.toISOString() };
      const prev = this.get(token);
      const review: TokenReview = { token, ...event, history: [...(prev?.history ?? []), event] };
      const next: ReviewFile = { version: 1, reviews: { ...this.data.reviews, [token]: review } };
      writeFileDurable(this.file, JSON.stringify(next, null, 1) + '\n');
      this.data = next;
      return review;
    });
  }
}

/** What a request reads of the reviews: the Node server's ReviewStore, or the edge's copy of the document. */
export type ReviewView = Pick<ReviewStore, 'version' | 'get' | 'all'>;

const stores = new Map<string, ReviewStore>();
/** The review store of a state folder, shared by every request of a server. */
export function reviewsIn(dir: string): ReviewStore {
  let s = stores.get(dir);
  if (!s) stores.set(dir, (s = new ReviewStore(dir)));
  return s;
}

/** A decision as a pure transition of the reviews document (the Redis store runs it under compare-and-set). */
export function withDecision(data: ReviewFile, token: string, decision: ReviewDecision, note: string, reviewer: string, now = new Date()): { next: ReviewFile; review: TokenReview } {
  if (!note.trim()) throw new Error('a review needs a note (--note "…")');
  const event: ReviewEvent = { decision, note: note.trim(), reviewer, at: now.toISOString() };
  const prev = Object.hasOwn(data.reviews, token) ? data.reviews[token] : undefined;
  const review: TokenReview = { token, ...event, history: [...(prev?.history ?? []), event] };
  return { next: { version: 1, reviews: { ...data.reviews, [token]: review } }, review };
}

/** Makes `store` the one a state folder's requests use (the server's Redis-backed copy). */
export function useReviews(dir: string, store: ReviewStore) {
  stores.set(dir, store);
}
