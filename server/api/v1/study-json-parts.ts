/**
 * The parts of the study panels' JSON that repeat, as ready text (issue 41, item 2): a
 * cold 100-verse range writes ~3 MB of tokens, and serializing the same morphology,
 * Latin candidates, layer fields and panel heads again for every token and panel was most
 * of its time. server/api/v1/study-tokens.ts writes the tokens and panels from these;
 * every piece is the JSON.stringify of what its object form (panelsOf) holds, in the same
 * key order (test/study-api.test.ts and test/study-serializer-check.ts compare them).
 * The caches hold one entry per distinct code, dictionary line or layer of the release:
 * bounded by the data, like morphology()'s own.
 */
import type { LayerMeta } from '../../../sources/scripture/study/layer.ts';
import { morphology } from '../../../sources/scripture/study/morphology.ts';
import { headword } from '../../../sources/scripture/study/latin.ts';

const q = JSON.stringify;

/** By layer, then code, then (OSHB only) lemma: the decoded JSON and part of speech. */
const decodedJson = new Map<string, Map<string, [string, string | null] | Map<string, [string, string | null]>>>();
/**
 * morphology() as JSON text and its part of speech, cached per code like the decoded parts.
 * Nested maps rather than one joined key: building and hashing a `layer|code|lemma` string
 * per token (a Vulgate lemma is a whole dictionary line) was a fifth of a range's
 * serialization. Only OSHB's decoding reads the lemma (it picks the main morpheme).
 */
export function morphologyJson(layer: string, code: string, lemma: string | null): [string, string | null] {
  let byCode = decodedJson.get(layer);
  if (!byCode) decodedJson.set(layer, (byCode = new Map()));
  const perLemma = layer.startsWith('oshb-');
  let j = byCode.get(code);
  if (perLemma) {
    if (!j) byCode.set(code, (j = new Map()));
    const byLemma = j as Map<string, [string, string | null]>;
    const hit = byLemma.get(lemma ?? '');
    if (hit) return hit;
    const made = decode(layer, code, lemma);
    byLemma.set(lemma ?? '', made);
    return made;
  }
  if (!j) byCode.set(code, (j = decode(layer, code, lemma)));
  return j as [string, string | null];
}
function decode(layer: string, code: string, lemma: string | null): [string, string | null] {
  const m = morphology(layer, code, lemma);
  return [JSON.stringify(m), (m.part_of_speech as string | undefined) ?? null];
}

export type LatinExtra = { candidates?: string[][] };

/** Headwords as JSON text by dictionary line (a finite vocabulary, like the decoded codes). */
const headwordJson = new Map<string, string>();
const hwJson = (entry: string) => headwordJson.get(entry) ?? headwordJson.set(entry, q(headword(entry))).get(entry)!;

/** A candidate's JSON up to its gloss, by dictionary line, and from its part of speech on, by code (of the one Latin layer). */
const heads = new Map<string, string>();
const candidateHead = (e: string) => heads.get(e) ?? heads.set(e, `{"lemma":${hwJson(e)},"dictionary_form":${q(e)},"gloss":`).get(e)!;
const tails = new Map<string, string>();
function candidateTail(layer: string, c: string) {
  let t = tails.get(c);
  if (t === undefined) {
    const [mj, p] = morphologyJson(layer, c, null);
    tails.set(c, (t = `,"part_of_speech":${q(p)},"morphology":${mj}}`));
  }
  return t;
}

/**
 * latinFields as JSON text pieces, from the cached decodings: the same values, without
 * building a candidate object and decoding its morphology for each token (a cold
 * 100-verse range has ~2,000 Vulgate tokens; their objects were a fifth of its time).
 */
export function latinJson(layer: string, entry: string | null, code: string | null, codePos: string | null, extra: LatinExtra | undefined, glosses: Record<string, string>) {
  let candidates: string | null = null;
  let pos: Set<string | null> | null = null;
  if (extra?.candidates) {
    const parts: string[] = [];
    pos = new Set();
    for (const [e, ...codes] of extra.candidates) {
      for (const c of codes) {
        const [, p] = morphologyJson(layer, c, null);
        pos.add(p);
        parts.push(`${candidateHead(e)}${q(glosses[`la:${e}`] ?? null)}${candidateTail(layer, c)}`);
      }
    }
    candidates = `[${parts.join(',')}]`;
  }
  const onePos = pos && pos.size === 1 ? [...pos][0] : null;
  return {
    lemma: entry ? hwJson(entry) : 'null',
    gloss: entry && !candidates ? q(glosses[`la:${entry}`] ?? null) : 'null',
    partOfSpeech: code ? q(codePos) : q(onePos),
    tail: `,"dictionary_form":${candidates ? 'null' : q(entry)}${candidates ? `,"candidates":${candidates}` : ''}`,
  };
}

/** Per layer, the parts of a token's JSON that are the same for all its tokens. */
const layerParts = new WeakMap<LayerMeta, { language: string; source: string; licence: string }>();
export function partsOf(layer: LayerMeta) {
  let p = layerParts.get(layer);
  if (!p) {
    layerParts.set(layer, (p = {
      language: `,"language":${q(layer.language)}`,
      source: `,"source":${q(layer.id)}`,
      licence: `,"licence":${q(layer.provenance.map((x) => x.licence.spdx))}`,
    }));
  }
  return p;
}
/**
 * Per layer, a panel head's parts that are the same for all its panels, as JSON text: the
 * licence objects and the source text were serialized again for each of a range's ~800
 * panels.
 */
const panelHeads = new WeakMap<LayerMeta, { start: string; sourceText: string; licence: string }>();
export function headOf(layer: LayerMeta) {
  let h = panelHeads.get(layer);
  if (!h) {
    const sourceText = { id: layer.id, name: layer.name, source_role: layer.role, kind: layer.kind, language: layer.language, version: layer.version, ...(layer.note ? { note: layer.note } : {}) };
    panelHeads.set(layer, (h = {
      start: q({ layer: layer.id, name: layer.name, language: layer.language, generated: layer.generated }).slice(0, -1),
      sourceText: `,"source_text":${q(sourceText)}`,
      licence: `,"licence":${q(layer.provenance.map((x) => x.licence))}`,
    }));
  }
  return h;
}
