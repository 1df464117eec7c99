/**
 * The Latin Vulgate (CrossWire VulgClementine, Vulg versification) and the Syriac
 * Peshitta New Testament (CrossWire Peshitta, KJV versification), read from their
 * pinned rawzip packages with the zText reader. Both are public domain text without
 * morphology: each word is a `pending` token (confidence low: nothing has analysed it)
 * until a reviewer or a future analyser supplies one.
 *
 * Latin words get morphology candidates from Whitaker's WORDS when the build machine has
 * it (latin.ts): generated, `rule-aligned` or `review-needed`; the rest stay pending.
 *
 * Words are the verse's clean text (sources/readers/sword-markup.ts) split on spaces,
 * with punctuation kept off the token (Latin ":;,.?!", Syriac "܀ ܁ ܂ ܃ ܄ ܆ ܇").
 */
import type { Provenance } from '../../contract.ts';
import { readSwordModule } from '../../readers/sword.ts';
import { cleanVerse } from '../../readers/sword-markup.ts';
import type { LayerMeta, LayerVerse, StudyLayer } from './layer.ts';
import { analyseLatin, latinForm, latinToken, WHITAKER_PROVENANCE } from './latin.ts';

const RAWZIP = 'https://www.crosswire.org/ftpmirror/pub/sword/packages/rawzip/';

interface Spec { module: string; sha256: string; version: string; date: string; versification: string; language: string; meta: Omit<LayerMeta, 'provenance' | 'versification' | 'language'> }

const provenance = (s: Spec, what: string): Provenance[] => [{
  name: `CrossWire SWORD module ${s.module} ${s.version}`,
  url: `https://www.crosswire.org/sword/modules/ModInfo.jsp?modName=${s.module}`,
  licence: { spdx: 'LicenseRef-Public-Domain', name: 'Public Domain', url: `https://www.crosswire.org/sword/modules/ModInfo.jsp?modName=${s.module}` },
  attribution: `${what}, public domain. Text from the CrossWire Bible Society SWORD module ${s.module} ${s.version} (${s.date}).`,
}];

const SPECS: [Spec, string][] = [
  [{ module: 'VulgClementine', sha256: '4871dd2b2ffbe1b8999c8f1f96e4f36d9efadc4a6174db0ee3b98b7c687b2904', version: '2.0.1', date: '2017-10-28',
    versification: 'Vulg', language: 'la',
    meta: { id: 'vulgate-clementine', name: 'Latin Vulgate (Clementine)', role: 'Latin Tradition', kind: 'Latin Vulgate', version: 'VulgClementine 2.0.1 (2017-10-28)',
      canon: ['old', 'new', 'apocrypha'], generated: false } }, 'Clementine Vulgate'],
  [{ module: 'Peshitta', sha256: 'badce0aa0a9b70a9c81891ed48d5a9e86de1e24d12ad4ad378e060e03cabc7b9', version: '2.0', date: '2020-02-08',
    versification: 'KJV', language: 'syc',
    meta: { id: 'peshitta-nt', name: 'Syriac Peshitta New Testament', role: 'Aramaic/Syriac Tradition', kind: 'Syriac New Testament', version: 'Peshitta 2.0 (2020-02-08)',
      canon: ['new'], generated: false, numbering: 'peshitta' } }, 'Syriac Peshitta'],
];

const PUNCT = /^[\p{P}\u0700-\u070D]+|[\p{P}\u0700-\u070D]+$/gu;

function swordLayer([s, what]: [Spec, string]): StudyLayer {
  const meta: LayerMeta = { ...s.meta, language: s.language, versification: s.versification, provenance: provenance(s, what) };
  return {
    layers: [meta],
    inputs: { [`sword:${s.module}`]: { kind: 'url', url: `${RAWZIP}${s.module}.zip`, sha256: s.sha256, format: 'buffer', optional: true } },
    read(raw) {
      const zip = raw[`sword:${s.module}`];
      if (!(zip instanceof Uint8Array)) return null;
      const mod = readSwordModule(zip, `${s.module}.zip`);
      if (mod.conf.versification !== s.versification || mod.conf.version !== s.version) {
        throw new Error(`${s.module}.zip: conf says versification ${mod.conf.versification} version ${mod.conf.version}, expected ${s.versification} ${s.version}`);
      }
      const out: LayerVerse[] = [];
      for (const v of mod.verses()) {
        if (!v.raw) continue;
        const text = cleanVerse(v.raw, 'OSIS', `${s.module} ${v.book} ${v.chapter}:${v.verse}`).text;
        const words = text.split(/\s+/).map((w) => w.replace(PUNCT, '')).filter(Boolean);
        if (!words.length) continue;
        out.push({
          layer: meta.id, ref: { book: v.book, chapter: v.chapter, verse: v.verse },
          tokens: words, // bare strings: pending tokens (see tokens.ts)
        });
      }
      meta.provenance = provenance(s, what);
      if (s.language === 'la') {
        // Latin morphology candidates where the build machine has Whitaker's WORDS (latin.ts).
        const forms = out.flatMap((v) => (v.tokens as string[]).map(latinForm).filter((f): f is string => f !== null));
        const analyses = analyseLatin(forms);
        if (analyses) {
          meta.provenance = [...meta.provenance, WHITAKER_PROVENANCE];
          for (const v of out) {
            const glosses: Record<string, string> = {};
            v.tokens = (v.tokens as string[]).map((w, i) => latinToken(i + 1, w, analyses, glosses));
            v.glosses = glosses;
          }
        }
      }
      return out;
    },
  };
}

export const [vulgateLayer, peshittaLayer] = SPECS.map(swordLayer);
