/**
 * A server for bench/serve.ts to measure, run as its own process so the load generator
 * and the server do not share an event loop. `sirv <dir>` serves a release folder as
 * plain static files (the baseline); `almanac` runs the real server (env decides dist,
 * state and cache). Prints `listening <port>` when ready.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';
import { createApp } from '../server/node/server.ts';

const [mode, dir] = process.argv.slice(2);
let server;
if (mode === 'sirv') {
  server = createServer(sirv(dir, { dev: false, etag: true, gzip: true, brotli: true }));
} else {
  const app = createApp({ dist: process.env.ALMANAC_DIST!, stateDir: process.env.ALMANAC_STATE_DIR! });
  // As `npm run serve` does: search indexes load before the first request.
  await app.release().warmSearch();
  server = app.server;
}
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGINT', () => process.exit(0)); // lets --cpu-prof write its profile
