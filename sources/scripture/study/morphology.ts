/**
 * A token's morphology code decoded, by layer: OSHB (Hebrew and Aramaic, per morpheme),
 * MorphGNT (SBLGNT), Whitaker's WORDS (the Vulgate) and Robinson (the Byzantine text and
 * the Peshitta's Greek-keyed tags). One place for the server's study panels
 * (server/api/v1/study-tokens.ts) and the offline database (pipeline/sqlite-study.ts).
 */
import { decodeMorphGnt } from './morph-morphgnt.ts';
import { decodeOshb } from './morph-oshb.ts';
import { decodeRobinson } from './morph-robinson.ts';
import { decodeWhitaker } from './morph-whitaker.ts';

/** The Vulgate layer, whose analysed tokens come from Whitaker's WORDS (latin.ts). */
export const LATIN_LAYER = 'vulgate-clementine';

const decoded = new Map<string, Record<string, unknown>>();
/** The source's code and its decoded parts; OSHB: per-morpheme segments plus the main word's parts. */
export function morphology(layer: string, code: string, lemma: string | null): Record<string, unknown> {
  const k = `${layer}|${code}|${lemma ?? ''}`;
  let d: Record<string, unknown> | undefined = decoded.get(k);
  if (!d) {
    if (layer.startsWith('oshb-')) {
      const o = decodeOshb(code);
      // The main morpheme is the one whose lemma part is a Strong's number ("b/7225" → 2nd).
      const parts = (lemma ?? '').split('/');
      let main = parts.findIndex((p) => /^\d/.test(p.trim()));
      if (main < 0 || parts.length !== o.segments.length) main = o.segments.findIndex((s) => !['conjunction', 'preposition', 'suffix'].includes(s.part_of_speech) && s.type !== 'definite article');
      d = { ...(o.segments[main < 0 ? 0 : main] ?? {}), segments: o.segments };
    } else if (layer === 'sblgnt') {
      const [pos, parse] = code.split(' ');
      d = decodeMorphGnt(pos, parse);
    } else if (layer === LATIN_LAYER) d = decodeWhitaker(code);
    else d = decodeRobinson(code);
    decoded.set(k, d);
  }
  return { code, ...d };
}

