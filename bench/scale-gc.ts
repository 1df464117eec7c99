/**
 * The node targets' full collections beside bench/scale.ts's rounds (issue 41, item 3). Each
 * node server runs with gc-marks.mjs loaded, which writes its mark-compacts to a file of its
 * own; after the run each 256-connection round is set beside them: at 256 connections the
 * rounds over 30 ms were the rounds holding a mark-compact (tenth pass), so a report of the
 * worst maximum says whether its round held one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import type { Round } from './scale-load.ts';

export interface Mark { at: number; ms: number }

let count = 0;
/** node's flags and the environment that make a server record its full collections, in a new file under `work`. */
export function gcWatch(work: string): { flags: string[]; env: { BENCH_GC_FILE: string }; file: string } {
  const file = path.join(work, `gc-${count++}.txt`);
  writeFileSync(file, '');
  return { flags: ['--import', pathToFileURL(path.join(PROJECT_ROOT, 'bench', 'gc-marks.mjs')).href], env: { BENCH_GC_FILE: file }, file };
}

/** A target's full collections: wall-clock start (ms) and pause (ms). */
export const readMarks = (file: string): Mark[] => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
  const [at, ms] = l.split(' ').map(Number);
  return { at, ms };
});

/** One line for a target: how many of its rounds held a full collection, their worst maximum and the others', and the rounds over `limit` ms. */
export function gcLine(target: string, rounds: Round[], marks: Mark[], limit = 50): string {
  const held = (r: Round) => marks.filter((m) => m.at >= r.from && m.at <= r.to);
  const withGc = rounds.filter((r) => held(r).length), without = rounds.filter((r) => !held(r).length);
  const over = rounds.filter((r) => r.max > limit);
  const pauses = rounds.flatMap(held).map((m) => m.ms);
  const worst = (rs: Round[]) => (rs.length ? `${Math.max(...rs.map((r) => r.max)).toFixed(1)} ms` : '–');
  const range = pauses.length ? ` (pauses ${Math.min(...pauses).toFixed(1)}–${Math.max(...pauses).toFixed(1)} ms)` : '';
  return `${target}: ${withGc.length} of ${rounds.length} rounds held one${range}, worst max ${worst(withGc)} with one, ${worst(without)} without; over ${limit} ms: ${over.length}, ${over.filter((r) => held(r).length).length} of them holding one`;
}
