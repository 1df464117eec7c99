/**
 * Start-up without a stall (issue 27): the server listens before any search index loads,
 * and an index load gives the event loop back in slices — one slice per turn among all
 * loads and rankings — so /healthz and lookups are answered while indexes load. These
 * assert order of events, not times: a loaded machine changes how long, not what happens first.
 */
import MiniSearch from 'minisearch';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { build } from '../server/cli/build.ts';
import { serve } from '../server/cli/serve.ts';
import { parseJson, SLICED_JSON_FROM } from '../server/release/json-slices.ts';
import { Release } from '../server/release/release.ts';
import { loadIndexSliced } from '../server/search/search-index.ts';
import { runInTurns } from '../server/search/turns.ts';
import elements from '../sources/elements.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

let dist: string;
beforeAll(async () => {
  dist = tempDir('almanac-startup-');
  await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: `${dist}/.cache` }, sources: [elements], log: quiet });
});
afterAll(() => cleanup(dist));

const status = (url: string, headers: Record<string, string> = {}) => new Promise<number>((resolve, reject) => {
  get(url, { headers }, (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0))).on('error', reject);
});

/** The JSON of a minisearch index of `docs` documents and `terms` terms of `perTerm` postings each, written as minisearch writes it. */
function largeIndexText(docs: number, terms: number, perTerm: number): string {
  const ids: string[] = [];
  const lengths: string[] = [];
  for (let d = 0; d < docs; d++) {
    ids.push(`"${d}":${d}`);
    lengths.push(`"${d}":[${1 + (d % 7)}]`);
  }
  const index: string[] = [];
  for (let t = 0; t < terms; t++) {
    const postings: string[] = [];
    for (let k = 0; k < perTerm; k++) postings.push(`"${(t * 7919 + k * 104729) % docs}":${1 + (k % 3)}`);
    index.push(`["term${t}",{"0":{${[...new Set(postings)].sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1))).join(',')}}}]`);
  }
  return `{"documentCount":${docs},"nextId":${docs},"documentIds":{${ids.join(',')}},"fieldIds":{"text":0},"fieldLength":{${lengths.join(',')}},"averageFieldLength":[4],"storedFields":{},"dirtCount":0,"index":[${index.join(',')}],"serializationVersion":2}`;
}

describe('index loads share the event loop', () => {
  it('runs one slice per event-loop turn among all computations under way', async () => {
    let turn = 0;
    let done = false;
    const tick = () => {
      turn++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const ran = new Map<number, Set<string>>();
    function* steps(name: string, n: number): Generator<void, string> {
      for (let i = 0; i < n; i++) {
        (ran.get(turn) ?? ran.set(turn, new Set()).get(turn)!).add(name);
        yield;
      }
      return name;
    }
    // A 0 ms slice gives the turn back at every step.
    const all = await Promise.all(['a', 'b', 'c'].map((name) => runInTurns(steps(name, 50), 0, name === 'b' ? 'request' : 'load')));
    done = true;
    expect(all).toEqual(['a', 'b', 'c']);
    // Before issue 27 each computation waited for its own setImmediate, and one turn ran them all.
    const crowded = [...ran].filter(([t, names]) => t > 0 && names.size > 1);
    expect(crowded).toEqual([]);
    expect(ran.size).toBeGreaterThan(100);
  });

  it('answers /healthz and a lookup while a large index loads, and loads the index loadJSON builds', async () => {
    let srv: Running | undefined;
    try {
      srv = await startServer(dist);
      const key = srv.key();
      const text = largeIndexText(200_000, 2_000, 100);
      let loaded = false;
      const loading = loadIndexSliced(text, { fields: ['text'] }).then((ms) => {
        loaded = true;
        return ms;
      });
      // Asked after the load began, answered before it ended.
      expect(await status(`${srv.base}/healthz`)).toBe(200);
      expect(loaded).toBe(false);
      expect(await status(`${srv.base}/apis/elements/Fe`, { 'x-service-key': key })).toBe(200);
      expect(loaded).toBe(false);
      const ms = await loading;
      expect(JSON.stringify(ms)).toBe(JSON.stringify(MiniSearch.loadJSON(text, { fields: ['text'] })));
    } finally {
      await srv?.close();
      if (srv) cleanup(srv.stateDir);
    }
  });

  it('reads escaped, long and non-ASCII terms, stored fields and fractions as loadJSON does', async () => {
    const options = { fields: ['text'], storeFields: ['rank', 'label'], tokenize: (s: string) => s.split(' ') };
    const ms = new MiniSearch(options);
    ms.addAll([
      { id: 7, text: 'say "hi" back\\slash ünïcödé 日本語 supercalifragilistic', rank: 2.5, label: 'x "y"' },
      { id: 3, text: 'tab\there a]b c}d {e [f', rank: -1, label: null },
      { id: 12, text: 'emoji🙂 𝔘 back\\slash', rank: 1e21, label: 'z' },
    ]);
    const text = JSON.stringify(ms);
    const mine = await loadIndexSliced(text, options, 0);
    const theirs = MiniSearch.loadJSON(text, options);
    expect(JSON.stringify(mine)).toBe(JSON.stringify(theirs));
    expect(mine.search('back\\slash')).toEqual(theirs.search('back\\slash'));
    expect(mine.search('"hi"')).toEqual(theirs.search('"hi"'));
  });
});

describe('large release files parsed in slices', () => {
  it('gives what JSON.parse gives, keys in the same order, for objects and arrays of any values', async () => {
    const filter: Record<string, unknown> = {};
    for (let v = 0; v < 40_000; v++) filter[v % 3 ? `value ${v} "q" \\ ,]}` : String(v)] = [v, v + 1, { n: v / 7 }];
    const column = Array.from({ length: 100_000 }, (_, k) => (k % 5 ? k * 0.001 - 3 : null));
    for (const value of [filter, column, [], {}, JSON.parse('{"__proto__":{"x":1},"a":[]}')]) {
      const text = JSON.stringify(value);
      const sliced = await parseJson(text.padEnd(SLICED_JSON_FROM, ' '), 0);
      expect(JSON.stringify(sliced)).toBe(JSON.stringify(JSON.parse(text)));
    }
    await expect(Promise.resolve().then(() => parseJson(`[1,2]x${' '.repeat(SLICED_JSON_FROM)}`))).rejects.toThrow(SyntaxError);
  });
});

describe('start-up', () => {
  it('listens, and answers /healthz and a lookup, before the search indexes are warmed', async () => {
    const state = tempDir('almanac-startup-state-');
    let finishWarming: () => void = () => {};
    // Warming that never ends until told: serve must not wait for it.
    const warm = vi.spyOn(Release.prototype, 'warmSearch').mockImplementation(() => new Promise<void>((resolve) => {
      finishWarming = resolve;
    }));
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const before = signals.map((sig) => process.listeners(sig));
    try {
      const app = await serve({ ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: '0' });
      try {
        expect(warm).toHaveBeenCalled();
        const addr = app.server.address();
        const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
        expect(await status(`${base}/healthz`)).toBe(200);
        expect(await status(`${base}/apis/elements/Fe`, { 'x-service-key': app.keys.create('development', 'test').secret })).toBe(200);
        finishWarming();
      } finally {
        await app.close();
      }
    } finally {
      warm.mockRestore();
      log.mockRestore();
      // serve() stops the process on these signals; this one is the test worker.
      signals.forEach((sig, k) => process.listeners(sig).filter((l) => !before[k].includes(l)).forEach((l) => process.off(sig, l)));
      cleanup(state);
    }
  });
});
