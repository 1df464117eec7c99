/**
 * `npm run keys -- <command>` (the commands: keys-commands.ts): on keys.json in
 * ALMANAC_STATE_DIR, or with ALMANAC_REDIS_URL on the document in Redis (cli/redis.ts).
 * With ALMANAC_EDGE_URL and ALMANAC_EDGE_TOKEN a change also reaches the edge before the
 * command returns (cli/edge-push.ts), so a revoke applies there from the next request.
 */
import { isMain } from '../../pipeline/cli.ts';
import { stateDir } from '../../pipeline/paths.ts';
import { KeyStore } from '../state/keys.ts';
import { edgeTarget, pullUsage, pushKeys } from './edge-push.ts';
import { runKeys } from './keys-commands.ts';

if (isMain(import.meta.url)) {
  // With ALMANAC_REDIS_URL the document lives in Redis (README "Scale-out"). Not a top-level
  // await: redis-cli.ts imports this module, which must finish evaluating first.
  const fail = (err: Error) => {
    console.error(`keys: ${err.message}`);
    process.exitCode = 2;
  };
  if (process.env.ALMANAC_REDIS_URL) {
    void import('./redis.ts').then((m) => m.keysViaRedis(process.argv.slice(2))).then((code) => { process.exitCode = code; }, fail);
  } else {
    (async () => {
      const dir = stateDir();
      const edge = edgeTarget(process.env);
      // `usage` with an edge named: its meters' counts asked for first (they join the Node server's).
      if (edge && process.argv[2] === 'usage') {
        await pullUsage(edge, dir).catch((err) => console.error(`keys: the edge at ${edge.url} did not answer (${err.message}); its counts as last pulled`));
      }
      const before = new KeyStore(dir).doc().rev;
      process.exitCode = runKeys(process.argv.slice(2));
      // ALMANAC_EDGE_URL: a change reaches the edge before the command returns (a revoke applies there from the next request).
      const after = new KeyStore(dir).doc();
      if (edge && after.rev !== before) {
        pushKeys(edge, after).then((r) => console.error(`keys: synced to the edge at ${edge.url} (${r.pushed} project slice(s) changed)`), (err) => {
          console.error(`keys: the change is saved in ${dir} but did not reach the edge at ${edge.url}: ${err.message}; run npm run edge:sync`);
          process.exitCode = 3;
        });
      }
    })().catch(fail);
  }
}
