/**
 * Baselines for bench/scale.ts, each its own process: `floor <dir>` answers every
 * `/r<n>` with the bytes of `<dir>/r<n>.json` from memory on bare node:http (the floor of
 * this stack), with the response headers almanac sent for it (`<dir>/r<n>.headers.json`,
 * a flat list, written by writeHead as almanac's are: issue 41 defines the floor as
 * almanac's exact bytes and headers); `sirv <dir>` serves the folder. Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sirv from 'sirv';

const [mode, dir] = process.argv.slice(2);
const bodies = new Map([0, 1, 2, 3].map((i) => [`/r${i}`, readFileSync(path.join(dir, `r${i}.json`))]));
const headers = new Map([0, 1, 2, 3].map((i) => {
  let list: string[] = ['content-type', 'application/json; charset=utf-8', 'content-length', String(bodies.get(`/r${i}`)!.length)];
  try {
    list = JSON.parse(readFileSync(path.join(dir, `r${i}.headers.json`), 'utf8'));
  } catch { /* no recorded headers: the minimal pair */ }
  return [`/r${i}`, list];
}));
const server = mode === 'sirv'
  ? createServer(sirv(dir, { dev: false, etag: true }))
  : createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, headers.get(req.url!)!);
    res.end(body);
  });
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
