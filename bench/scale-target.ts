/**
 * Baselines for bench/scale.ts, each its own process: `floor <dir>` answers every
 * `/r<n>` with the bytes of `<dir>/r<n>.json` from memory on bare node:http (the floor of
 * this stack); `sirv <dir>` serves the folder. Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sirv from 'sirv';

const [mode, dir] = process.argv.slice(2);
const bodies = new Map([0, 1, 2, 3].map((i) => [`/r${i}`, readFileSync(path.join(dir, `r${i}.json`))]));
const server = mode === 'sirv'
  ? createServer(sirv(dir, { dev: false, etag: true }))
  : createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, ['content-type', 'application/json; charset=utf-8', 'content-length', String(body.length)]);
    res.end(body);
  });
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
