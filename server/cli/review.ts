/**
 * `npm run review -- <command>` (the commands: review-commands.ts): on reviews.json in
 * ALMANAC_STATE_DIR, or with ALMANAC_REDIS_URL on the document in Redis (cli/redis.ts);
 * with ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN a decision also reaches the edge.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMain } from '../../pipeline/cli.ts';
import { stateDir } from '../../pipeline/paths.ts';
import { edgeTarget, pushReviews } from './edge-push.ts';
import { runReview } from './review-commands.ts';

if (isMain(import.meta.url)) {
  const fail = (err: Error) => {
    console.error(`review: ${err.message}`);
    // A bad option or argument is a usage error (2), as for every command.
    process.exitCode = /\nusage:/.test(err.message) ? 2 : 1;
  };
  // ALMANAC_REDIS_URL: reviews in Redis. Not a top-level await (redis-cli.ts imports this module).
  if (process.env.ALMANAC_REDIS_URL) {
    void import('./redis.ts').then((m) => m.reviewViaRedis(process.argv.slice(2))).then((code) => { process.exitCode = code; }, fail);
  } else {
    runReview(process.argv.slice(2)).then(async (code) => {
      process.exitCode = code;
      // ALMANAC_EDGE_URL: a decision reaches the edge before the command returns.
      const edge = edgeTarget(process.env);
      const file = path.join(stateDir(), 'reviews.json');
      if (edge && code === 0 && ['verify', 'reject'].includes(process.argv[2]) && existsSync(file)) {
        await pushReviews(edge, readFileSync(file, 'utf8'));
        console.error(`review: synced to the edge at ${edge.url}`);
      }
    }, fail);
  }
}
