/**
 * The two Greek New Testament layers:
 *
 * - SBLGNT with MorphGNT morphology (morphgnt/sblgnt, mirrored): parse codes decoded by
 *   morph-morphgnt.ts. MorphGNT gives lemmas but no Strong's numbers: a lemma spelled
 *   exactly like one Strong's Greek entry is linked to it (`lexicon-aligned`, medium);
 *   a lemma with none or several entries stays `imported` (high: the analysis is
 *   MorphGNT's own) without a number.
 * - Robinson–Pierpont 2018 Byzantine text with Strong's numbers and Robinson parsing
 *   (byztxt, mirrored, public domain): `dataset-backed` (high). Its words are unaccented,
 *   as in the source file.
 */
import type { InputSpec, Provenance } from '../../contract.ts';
import { readByzantineCsv, readMorphGnt } from '../../readers/greek-nt.ts';
import type { LayerMeta, LayerVerse, StudyLayer } from './layer.ts';
import { tuple } from './tokens.ts';

const MORPHGNT_BASE = 'https://raw.githubusercontent.com/morphgnt/sblgnt/master/';
const BYZ_BASE = 'https://raw.githubusercontent.com/byztxt/byzantine-majority-text/master/csv-unicode/strongs/with-parsing/';
/** OSIS book ids in MorphGNT file order (61-Mt … 87-Re) and byztxt's file codes. */
const NT = ['Matt', 'Mark', 'Luke', 'John', 'Acts', 'Rom', '1Cor', '2Cor', 'Gal', 'Eph', 'Phil', 'Col', '1Thess', '2Thess', '1Tim', '2Tim',
  'Titus', 'Phlm', 'Heb', 'Jas', '1Pet', '2Pet', '1John', '2John', '3John', 'Jude', 'Rev'];

// sha256 of each mirrored file (see ../shared/upstream/PROVENANCE.md).
const MORPHGNT_PINS: [string, string][] = [
  ['61-Mt-morphgnt.txt', '95b360228bedd1c2d06655469111d3f028a4ce1d46939d440ed549feee8b73ec'],
  ['62-Mk-morphgnt.txt', '4a2d2365cfe3e8d6c20b7c130c2c46363fa4459c3a6004992eba0a18231b183e'],
  ['63-Lk-morphgnt.txt', 'a6f10ccf27a905f21ecbec96c3c01f220c39dd37aae118022113a52dfeb7528e'],
  ['64-Jn-morphgnt.txt', '1b1de3e48e3f3d212ba19c76e5b2f1749833f888f5b52513099ec13cc01b619c'],
  ['65-Ac-morphgnt.txt', '04349afeba263d667698b37d39465d746530434b455fb6ac2941ec5c59fb85ca'],
  ['66-Ro-morphgnt.txt', '364b3b57c70e731920c7fa8a61f09ecd53eed858f7f3590596066484d0638cc6'],
  ['67-1Co-morphgnt.txt', '5233a5b099e2499baed34ec2d6f53ae44545d532a7e2fb12acafcf39ff6fdbf3'],
  ['68-2Co-morphgnt.txt', '1742d5076780a5338a858f2d83e615c87b2412cbefa56a4b8e14aa2c0ce326c4'],
  ['69-Ga-morphgnt.txt', 'ec249897464e8e8992e4869645471d6f3372e7373ba3a5d429516946d8cffada'],
  ['70-Eph-morphgnt.txt', '9f6444d3aff9791817c2ad84d8ff5b1c229d18a4e9ab07e5066ceb0068dee397'],
  ['71-Php-morphgnt.txt', '6e6133fba46c164c16264c4d9563b30d5634effba5792419f8ed5d5ec08961a4'],
  ['72-Col-morphgnt.txt', '21e18b4310ce953cd786f8466824f24795cb46ef149dc501a330d55a05f7346a'],
  ['73-1Th-morphgnt.txt', 'e322ec075748e81897dc0a2b87a821ee78e200f6ba833bbba07607e55a3c68d5'],
  ['74-2Th-morphgnt.txt', '309ba3338e0ccf2219bea7ee49f1e63bbefc1edcceedc5527c79395fd6b0bc19'],
  ['75-1Ti-morphgnt.txt', 'b4a6a446d163b8b651ba11119bbc211b4e14cb12871b48df175adb88d4f9db97'],
  ['76-2Ti-morphgnt.txt', '8af532322a0693ecb8d34b75c544c3b6a57e76e266be750d62d42bc07385376e'],
  ['77-Tit-morphgnt.txt', '16e9204306d616795f53f8627ff6ea05a80f572d7a21ed23ac7df99c6e00324d'],
  ['78-Phm-morphgnt.txt', 'e302779406b5405e8ff82a0dc2ded5ab49951f0d6245fe86894100bd83c51e33'],
  ['79-Heb-morphgnt.txt', 'de7d5c7efe4cdb5e9023c8571c322c3b1a5a817de1d97c3275aef5e154b2756b'],
  ['80-Jas-morphgnt.txt', '205d4cdbb4c89aabd51ebf599fcfa622001af6e64dcd4e5ad487298ee4b7a204'],
  ['81-1Pe-morphgnt.txt', '7eeeecddae91a5d103576f629e4fa536fa2217381f4a83eaa904b63d81ffc0b8'],
  ['82-2Pe-morphgnt.txt', '41c1bb93726bf66e46653bb369850f2e319869375f31746d120276dff73a310a'],
  ['83-1Jn-morphgnt.txt', '99fb0d33100f9df25697e9b9ecaa04c599a277b5f2f65f8ed28e97902fed4df9'],
  ['84-2Jn-morphgnt.txt', 'bb90002d6b9bbbc43977a59c85ad04de873750b5e24187da064a319c2acd7fec'],
  ['85-3Jn-morphgnt.txt', 'a75df82d9007bb673e7d27bcb86681e011befc24cbaef1c658965803d7ae490a'],
  ['86-Jud-morphgnt.txt', '93c64857b492812544f1c5903bb63b5ec63ee5f32f69dd4c02d9d9c84b84624d'],
  ['87-Re-morphgnt.txt', '5386b17ab6e3a8a68478cb0f4644009f6ad5322f379327629407ffd46a0e6dd3'],
];
const BYZ_PINS: [string, string][] = [
  ['MAT', 'a46e3b9d3f02df1ad2022757474c46fd939517d9457a38f7b253efd6eca7e7d8'],
  ['MAR', 'fddcfeeb7f03cd2bd7be230725f78e2a16b872cdb97dc92703f9dc2cffb28261'],
  ['LUK', '929f10c29dbf8f670edeeb87f997a684c6e13615cdeec796c5fc7e4f10deb49c'],
  ['JOH', 'c1c004f56e931630ac98cb973dea8b2da4d5220d707cd66fe980cb8c11e1fa9c'],
  ['ACT', 'e5b18a3322a236c2a3ffb57c4c620b9b107974158096acd61ec085fd376d046e'],
  ['ROM', '6140de6671ea420772a4539e9fd215fddb6650f7053b99a020b993cb6172ae6b'],
  ['1CO', '6e08733db7ebb24b1128b1d4482599e5dc0f1b09f10fb497fc44f4ad61156f77'],
  ['2CO', 'e1da5707a783cf4c9ea46f586a947594767b6a2913ee9f302bf07d450a874dae'],
  ['GAL', 'eec74c4ce35ea37a6108d977c757792f5cb6ab3e8b09f8d4d8a069d806fe8c58'],
  ['EPH', '4843b25ffbb0bc70c26f02ee023c9677c2d42cd0acaafacb50b42752f74bb533'],
  ['PHP', '641aeac650308906dc9d637fb7dadc9a3157939137c4dced8970dbee153f35f1'],
  ['COL', '8f0e6549e0f6180dc51d2e6b14e60e6f574643db5c231c1683e4daf908ff3bd2'],
  ['1TH', '5f6c0c71d2ecf38a7e3b91390f7ead6b1e3873de63c88276c4ddec68ccd407c9'],
  ['2TH', '06306adf0008dbcfba4a0371dbdc765e1180c29ab266e8399d34f39aaed8f929'],
  ['1TI', '4053c4780be4e5b5a155e8ff15760ca14b92bc3b942649012dc5f22b16050a43'],
  ['2TI', '9d2b77165d1849ca38d02f98d732b2ce3562e26c329e7a5de0b9b0006ee815b5'],
  ['TIT', '5711b70e93e749376f12c0c252a1238bcf9ea7748378fb53c62b766f434469d4'],
  ['PHM', 'dfd3146e2631ecc43b609d943085eabcce355a625bd1cd55b3f2a9d8f7658bfb'],
  ['HEB', 'a2978d3a0458fbf565d3a13353dd883185334f0184d4389eef3c1d385285b671'],
  ['JAM', '9b6543a9adecdb3a1c871b3c613e4e760a646bb23f5fc3b3f3235dd0d1b11676'],
  ['1PE', 'fb55a3d4cbe3f52809492b5fb0a0b1e08757aa586ca4cdb58d310571285fbd4c'],
  ['2PE', '9b44ffcf9fb2e04808bb90dc6ff2446d862d9cb2beeda1a1400947894ae94d54'],
  ['1JO', '20861515f3af3db6ab731afdd44737f06f5de6f2c96899042a7fb32848f871bf'],
  ['2JO', 'e65c07bcb0ecfd3d2fd4dc806f998f77523d17e986049c4105902109eeb356f7'],
  ['3JO', '969332153c6d49cae274bd7372928f8be04efb4ba2b5851520a67a1d2ffa5742'],
  ['JUD', '88729e0a8af554468b6b0d29772c949dfd662c7ce965137e55d1aa3e7f3b6c93'],
  ['REV', '5c8fbd1c231de84ff3ab34f733d152ef9b61faf4d9d315d5ec57a7c9c18655a5'],
];

export const SBLGNT: LayerMeta = {
  id: 'sblgnt', name: 'Greek New Testament (SBLGNT) with MorphGNT morphology', language: 'grc', role: 'Original Language',
  kind: 'Greek New Testament', version: 'MorphGNT SBLGNT 6.12 (morphgnt/sblgnt @ aaed91e)', canon: ['new'], generated: false, versification: 'NA27/28 (as the SBLGNT numbers)', numbering: 'sblgnt',
  provenance: [
    { name: 'MorphGNT SBLGNT', url: 'https://github.com/morphgnt/sblgnt',
      licence: { spdx: 'CC-BY-SA-3.0', name: 'Creative Commons Attribution-ShareAlike 3.0 (morphology, lemmas)', url: 'https://creativecommons.org/licenses/by-sa/3.0/' },
      attribution: 'Morphological parsing and lemmatization: MorphGNT (James Tauber and contributors), CC BY-SA 3.0.' },
    { name: 'SBL Greek New Testament', url: 'https://sblgnt.com/license/',
      licence: { spdx: 'CC-BY-4.0', name: 'Creative Commons Attribution 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
      attribution: 'Scripture quotations marked SBLGNT are from the SBL Greek New Testament. Copyright © 2010 Society of Biblical Literature and Logos Bible Software.' },
  ],
};
export const BYZANTINE: LayerMeta = {
  id: 'byzantine-rp2018', name: 'Byzantine Greek New Testament (Robinson–Pierpont 2018) with Strong\'s and parsing', language: 'grc',
  role: 'Original Language', kind: 'Greek New Testament', version: 'RP2018 (byztxt @ 27a45ff, csv-unicode 2024-12-31)', canon: ['new'],
  generated: false, versification: 'RP2018 (KJV but Matt 23:13-14, Rom 14:24-26)', numbering: 'byzantine-rp2018',
  provenance: [{ name: 'byztxt/byzantine-majority-text', url: 'https://github.com/byztxt/byzantine-majority-text',
    licence: { spdx: 'Unlicense', name: 'Public Domain (Unlicense)', url: 'https://github.com/byztxt/byzantine-majority-text/blob/master/LICENSE.txt' },
    attribution: 'The New Testament in the Original Greek: Byzantine Textform 2018, Maurice A. Robinson and William G. Pierpont, public domain.' }],
};

const pinned = (base: string, pins: [string, string][], prefix: string, ext: string): Record<string, InputSpec> =>
  Object.fromEntries(pins.map(([f, sha256]) => [`${prefix}:${f}`, { kind: 'url', url: `${base}${f}${ext}`, sha256, format: 'text', optional: true } as InputSpec]));

/** All files present, or null (the layer is absent: a partial New Testament would mislead). */
function files(raw: Record<string, unknown>, prefix: string, pins: [string, string][]): string[] | null {
  const texts = pins.map(([f]) => raw[`${prefix}:${f}`]);
  return texts.every((t) => typeof t === 'string') ? (texts as string[]) : null;
}

export const sblgntLayer: StudyLayer = {
  layers: [SBLGNT],
  inputs: pinned(MORPHGNT_BASE, MORPHGNT_PINS, 'morphgnt', ''),
  read(raw, lexicon) {
    const texts = files(raw, 'morphgnt', MORPHGNT_PINS);
    if (!texts) return null;
    const out: LayerVerse[] = [];
    texts.forEach((text, b) => {
      for (const v of readMorphGnt(text, MORPHGNT_PINS[b][0])) {
        out.push({
          layer: SBLGNT.id, ref: { book: NT[b], chapter: v.chapter, verse: v.verse },
          tokens: v.words.map((w, i) => {
            const hits = lexicon.greekLemma(w.lemma!);
            const strong = hits.length === 1 ? hits[0] : null;
            return tuple(i + 1, w.text, w.lemma!, strong, `${w.pos} ${w.parse}`, strong ? 'lexicon-aligned' : 'imported', strong ? 'medium' : 'high');
          }),
        });
      }
    });
    return out;
  },
};

export const byzantineLayer: StudyLayer = {
  layers: [BYZANTINE],
  inputs: pinned(BYZ_BASE, BYZ_PINS, 'byz', '.csv'),
  read(raw, lexicon) {
    const texts = files(raw, 'byz', BYZ_PINS);
    if (!texts) return null;
    const out: LayerVerse[] = [];
    texts.forEach((text, b) => {
      for (const v of readByzantineCsv(text, `${BYZ_PINS[b][0]}.csv`)) {
        out.push({
          layer: BYZANTINE.id, ref: { book: NT[b], chapter: v.chapter, verse: v.verse },
          tokens: v.words.map((w, i) => {
            const strong = w.strongs?.[0] ?? null;
            const known = !!strong && lexicon.has(strong);
            const extra: Record<string, unknown> = {};
            if (w.strongs && w.strongs.length > 1) extra.strongs = w.strongs;
            if (w.alternatives) extra.alternatives = w.alternatives;
            return tuple(i + 1, w.text, known ? lexicon.lemma(strong) : null, strong, w.parse, known ? 'dataset-backed' : 'imported', 'high',
              Object.keys(extra).length ? extra : null);
          }),
        });
      }
    });
    return out;
  },
};
