/**
 * Latin morphology candidates for the Vulgate's words from William Whitaker's WORDS
 * (Debian package `whitakers-words`, 1.97FC; "Permission is hereby freely given for any
 * and all use of program and data": /usr/share/doc/whitakers-words/copyright).
 *
 * The analyser is a program, not a dataset: when the build machine has it, the build
 * runs it once, offline, over the Vulgate's distinct word forms (one process, every
 * word in one input file) and caches the parsed answers by the binary's hash and the
 * forms' hash (`.cache/whitakers-words/`), so later builds read the cache. Without it
 * the Latin words stay `pending` and the build says so once. Its answers are generated
 * analyses, labelled as such: one analysis → `rule-aligned` (medium), several →
 * `review-needed` (low, every candidate listed), none → `pending`.
 *
 * The input form is the surface word lower-cased with æ/œ spelled out and diacritics
 * removed (`cælum` → `caelum`, `Israël` → `israel`), which is how WORDS spells.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Provenance } from '../../contract.ts';
import { readWhitakerOutput, whitakerInput } from '../../readers/whitaker.ts';
import { tuple, type TokenTuple } from './tokens.ts';

export const WHITAKER_PROVENANCE: Provenance = {
  name: "William Whitaker's WORDS 1.97FC (Debian whitakers-words 0.2020.10.27)",
  url: 'https://packages.debian.org/bookworm/whitakers-words',
  licence: { spdx: 'LicenseRef-Whitakers-Words', name: "Whitaker's WORDS licence (free for any use)", url: 'https://mk270.github.io/whitakers-words/' },
  attribution: "Latin lemma and morphology candidates generated with William Whitaker's WORDS (1993–2010 William Whitaker, 2015–2020 Martin Keegan), free for any use; generated, not reviewed.",
};

/** A parsed answer as cached: per entry [dictionary line, meaning, inflection codes]. */
export type LatinAnswer = [string, string, string[]][];
export interface LatinAnalyses { analyser: string; words: Map<string, LatinAnswer> }

/** Bumped when the reader's parsing changes, so a cache of older answers is not reused. */
const READER_VERSION = 2;
/**
 * The project folder (the nearest one up with a package.json): this module runs from
 * sources/ under tsx and from lib/sources/ compiled, and the cache must not live in lib/,
 * which every compile replaces.
 */
const ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

/** The form WORDS is asked about, or null for a word it cannot take (hyphens, digits). */
export function latinForm(surface: string): string | null {
  const f = surface.toLowerCase().replace(/æ/g, 'ae').replace(/œ/g, 'oe').normalize('NFD').replace(/\p{M}/gu, '');
  return /^[a-z]{2,}$/.test(f) ? f : null;
}

function findBinary(env: NodeJS.ProcessEnv): string | null {
  const name = env.ALMANAC_WHITAKER ?? 'whitakers-words';
  if (name.includes('/')) return existsSync(name) ? name : null;
  for (const dir of (env.PATH ?? '').split(':')) {
    const p = path.join(dir || '.', name);
    if (existsSync(p)) return p;
  }
  return null;
}

let warned = false;
/**
 * Analyses of the given forms, from the cache or one run of WORDS; null (and one line on
 * stderr) when the program is not installed.
 */
export function analyseLatin(forms: string[], env: NodeJS.ProcessEnv = process.env): LatinAnalyses | null {
  const bin = findBinary(env);
  if (!bin) {
    if (!warned) console.warn('study: whitakers-words is not installed: Latin (Vulgate) words stay pending (apt-get install whitakers-words)');
    warned = true;
    return null;
  }
  const words = [...new Set(forms)].sort();
  const analyser = createHash('sha256').update(readFileSync(bin)).digest('hex').slice(0, 16);
  const key = createHash('sha256').update(`${analyser}\n${READER_VERSION}\n${words.join('\n')}`).digest('hex').slice(0, 24);
  const dir = env.ALMANAC_WHITAKER_CACHE ?? path.join(ROOT, '.cache', 'whitakers-words');
  const file = path.join(dir, `${key}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { analyser: string; words: Record<string, LatinAnswer> };
    return { analyser: cached.analyser, words: shareStrings(new Map(Object.entries(cached.words))) };
  }
  // File mode (`whitakers-words <in> <out>`): no prompts and no screen paging. It runs in
  // a temporary folder as it may write its parameter files beside itself.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'almanac-words-'));
  try {
    writeFileSync(path.join(tmp, 'in.txt'), whitakerInput(words));
    const r = spawnSync(bin, ['in.txt', 'out.txt'], { cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30 * 60_000 });
    if (r.status !== 0) throw new Error(`whitakers-words failed (${r.status ?? r.signal}): ${String(r.stderr).slice(0, 300)}`);
    const parsed = readWhitakerOutput(readFileSync(path.join(tmp, 'out.txt'), 'latin1'), words);
    const out = new Map<string, LatinAnswer>();
    for (const [w, a] of parsed) if (a.entries.length) out.set(w, a.entries.map((e) => [e.entry, e.meaning, e.codes]));
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ analyser, words: Object.fromEntries(out) }));
    renameSync(partial, file);
    return { analyser, words: shareStrings(out) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * One string for each distinct dictionary line and inflection code across the answers:
 * parsed, every form's answer has its own copies ("N 1 1 NOM S F" ~640 times), and the
 * tokens' candidates keep them for the whole build.
 */
function shareStrings(words: Map<string, LatinAnswer>): Map<string, LatinAnswer> {
  const seen = new Map<string, string>();
  const one = (s: string) => seen.get(s) ?? (seen.set(s, s), s);
  for (const answer of words.values()) {
    for (const e of answer) {
      e[0] = one(e[0]);
      e[2] = e[2].map(one);
    }
  }
  return words;
}

/**
 * The stored token of a Latin word: a bare string while nothing analysed it; else the
 * tuple, with the dictionary line in the lemma slot (the server shows its headword as
 * `lemma` and the line as `dictionary_form`) and, for several analyses, the candidates
 * grouped by entry: `{ candidates: [[dictionary line, code, code…], …] }`. Short glosses
 * go to the record's glosses under `la:<dictionary line>` (once per verse, not per token).
 */
export function latinToken(position: number, surface: string, analyses: LatinAnalyses, glosses: Record<string, string>): TokenTuple | string {
  const form = latinForm(surface);
  const answer = form ? analyses.words.get(form) : undefined;
  if (!answer) return surface;
  const d = derived(answer);
  for (const [key, gloss] of d.glosses) glosses[key] = gloss;
  if (d.single) return tuple(position, surface, answer[0][0], null, answer[0][2][0], 'rule-aligned', 'medium');
  return tuple(position, surface, d.lemma, null, null, 'review-needed', 'low', d.candidates);
}

/**
 * What a token takes from its form's answer, worked out once per answer and shared by
 * every token of the form (the Vulgate's 612,000 words are ~30,000 forms): the gloss
 * entries and, for several analyses, one `candidates` object. Tokens only ever
 * serialise it, never change it. Keyed weakly, so it goes with the analyses.
 */
interface Derived { glosses: [string, string][]; single: boolean; lemma: string | null; candidates: { candidates: string[][] } | null }
const DERIVED = new WeakMap<LatinAnswer, Derived>();
function derived(answer: LatinAnswer): Derived {
  let d = DERIVED.get(answer);
  if (d) return d;
  const glosses: [string, string][] = [];
  for (const [entry, meaning] of answer) if (meaning) glosses.push([`la:${entry}`, shortGloss(meaning)]);
  const count = answer.reduce((n, [, , codes]) => n + codes.length, 0);
  const heads = new Set(answer.map(([entry]) => headword(entry)));
  d = count === 1 ? { glosses, single: true, lemma: null, candidates: null }
    : { glosses, single: false, lemma: heads.size === 1 ? answer[0][0] : null, candidates: { candidates: answer.map(([entry, , codes]) => [entry, ...codes]) } };
  DERIVED.set(answer, d);
  return d;
}

/**
 * A short gloss, like the Strong's ones: WORDS' first group of senses (up to its first
 * ";"), at most 80 characters. Its full meanings run to several lines and, repeated in
 * every verse that uses the word, were a quarter of the study shards.
 */
export function shortGloss(meaning: string): string {
  const first = meaning.split(';')[0].trim();
  return first.length <= 80 ? first : `${first.slice(0, 79).replace(/[ ,]+\S*$/, '')}…`;
}

/** "principium, principi(i) N (2nd) N" → "principium"; "in PREP ABL" → "in". */
export const headword = (entry: string) => entry.split(/[ ,]/)[0];
