/**
 * What the node targets' event loops held beside bench/scale.ts's rounds (issue 41, item 3).
 * Each node server runs with gc-marks.mjs loaded, which writes its full collections and its
 * loop stalls to a file of its own; after the run each 256-connection round is set beside
 * them. At 256 connections the rounds over 30 ms were the rounds holding a mark-compact
 * (tenth pass); a round over the target that held neither a collection nor a stall of the
 * server's loop was delayed elsewhere (the load generator's side, the machine).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import type { Round } from './scale-load.ts';

export interface Mark { kind: 'gc' | 'stall'; at: number; ms: number }

let count = 0;
/**
 * Every node target's flags and environment: its full collections and stalls recorded, in a
 * new file under `work`; and V8's memory reducer off. The targets take turns on one core,
 * and an idle one's memory reducer starts a full collection a few seconds after its round,
 * on that core, in another target's round: with it, single other targets used 17–31 ms of
 * CPU during a 1-second round after a quiet 100 ms before it; without it, at most 5.1 ms
 * (eleventh pass). It only acts on an idle heap, so a target under load runs as it would.
 */
export function gcWatch(work: string): { flags: string[]; env: { BENCH_GC_FILE: string }; file: string } {
  const file = path.join(work, `gc-${count++}.txt`);
  writeFileSync(file, '');
  return { flags: ['--no-memory-reducer', '--import', pathToFileURL(path.join(PROJECT_ROOT, 'bench', 'gc-marks.mjs')).href], env: { BENCH_GC_FILE: file }, file };
}

/** A target's marks: kind, wall-clock start (ms) and length (ms). */
export const readMarks = (file: string): Mark[] => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
  const [kind, at, ms] = l.split(' ');
  return { kind: kind as Mark['kind'], at: Number(at), ms: Number(ms) };
});

/**
 * One line for a target: how many of its rounds held a full collection (their worst maximum
 * and the others'), and of its rounds over `limit` ms, what each held: a collection, a
 * stall of the loop without one, or neither.
 */
export function gcLine(target: string, rounds: Round[], marks: Mark[], limit = 50): string {
  const inRound = (r: Round, kind: Mark['kind']) => marks.filter((m) => m.kind === kind && m.at >= r.from && m.at <= r.to);
  const withGc = rounds.filter((r) => inRound(r, 'gc').length), without = rounds.filter((r) => !inRound(r, 'gc').length);
  const over = rounds.filter((r) => r.max > limit);
  const overGc = over.filter((r) => inRound(r, 'gc').length);
  const overStall = over.filter((r) => !inRound(r, 'gc').length && inRound(r, 'stall').length);
  const pauses = rounds.flatMap((r) => inRound(r, 'gc')).map((m) => m.ms);
  const worst = (rs: Round[]) => (rs.length ? `${Math.max(...rs.map((r) => r.max)).toFixed(1)} ms` : '–');
  const range = pauses.length ? ` (pauses ${Math.min(...pauses).toFixed(1)}–${Math.max(...pauses).toFixed(1)} ms)` : '';
  const stalls = overStall.flatMap((r) => inRound(r, 'stall')).map((m) => m.ms);
  const stallNote = stalls.length ? ` (stalls up to ${Math.max(...stalls).toFixed(0)} ms)` : '';
  const others = rounds.map((r) => r.othersMs).filter((x) => x !== undefined);
  const othersNote = others.length ? `; the other targets' CPU during its rounds at most ${Math.max(...others).toFixed(1)} ms` : '';
  return `${target}: ${withGc.length} of ${rounds.length} rounds held a full collection${range}, worst max ${worst(withGc)} with one, ${worst(without)} without; `
    + `over ${limit} ms: ${over.length} (${overGc.length} holding a collection, ${overStall.length} a stall of the loop without one${stallNote}, ${over.length - overGc.length - overStall.length} neither)${othersNote}`;
}
