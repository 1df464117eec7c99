/**
 * Open English Bible, US edition, from seven1m/open-bibles `eng-us-oeb.osis.xml` (converted
 * from the OEB's USFM by u2o.py, 2021-07-08). Milestone-verse OSIS read by
 * sources/readers/osis.ts.
 *
 * The OEB is unfinished: this file has 42 books and 11,722 verses — Ruth, Esther, Psalms,
 * the twelve minor prophets (Hosea–Malachi) and the whole New Testament. Every other Old
 * Testament book is simply absent, and the edition string says so.
 *
 * 19 New Testament verses are present but empty (Matt 17:21, Mark 9:44, John 5:4, Acts 8:37,
 * Rom 16:24 …): the OEB follows Westcott–Hort, which omits them, and its only content there
 * is a footnote ("Some later manuscripts add: …"), which the reader drops like all notes.
 *
 * Versification: the chapter and verse counts of every book present match SWORD's NRSV
 * table (the USFM headers say "NSRV and JPS Versification is same"); 3 John has 15 verses
 * and Revelation 12 has 18, unlike KJV.
 *
 * Licence: the OSIS header carries none. The open-bibles README lists the file as "Public
 * Domain"; the OEB's own legal/README.md says the OEB "is available for use without
 * restriction under the Creative Commons Zero Licence" and asks that an altered version be
 * renamed or its changes indicated. We only drop notes and headings, which is not a text
 * change.
 */
import type { TranslationSource, Verse } from './contract.ts';
import { BOOKS } from './books.ts';
import { readOsis } from '../readers/osis.ts';

const URL_OEB = 'https://raw.githubusercontent.com/seven1m/open-bibles/master/eng-us-oeb.osis.xml';

const CANON = new Map(BOOKS.map((b, i) => [b.osis, i]));

function read(raw: Record<string, unknown>): Verse[] {
  if (typeof raw.osis !== 'string') throw new Error(`${URL_OEB}: expected the OSIS document as text`);
  const verses = readOsis(raw.osis, { file: URL_OEB });
  // The file is already in canon order; sorting keeps that true if upstream reorders books.
  return verses
    .map((v, i) => ({ v, i }))
    .sort((a, b) => CANON.get(a.v.book)! - CANON.get(b.v.book)! || a.i - b.i)
    .map(({ v }) => v);
}

export const oeb: TranslationSource = {
  slug: 'oeb',
  abbreviation: 'OEB',
  name: 'Open English Bible (US edition)',
  language: 'en-US',
  edition:
    'US edition, open-bibles OSIS of 2021-07-08 — incomplete: 42 books (Ruth, Esther, Psalms, Hosea–Malachi and the New Testament), ' +
    'the rest of the Old Testament is not yet translated',
  versification: 'NRSV',
  provenance: [
    {
      name: 'Open English Bible (US edition)',
      url: 'https://openenglishbible.org',
      licence: { spdx: 'CC0-1.0', name: 'Creative Commons Zero v1.0 Universal', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
      attribution:
        'Open English Bible, Russell Allen and contributors (openenglishbible.org), released under CC0. ' +
        'The project asks that altered versions be renamed or their changes indicated.',
    },
    {
      name: 'seven1m/open-bibles eng-us-oeb.osis.xml',
      url: 'https://github.com/seven1m/open-bibles',
      licence: { spdx: 'CC0-1.0', name: 'Creative Commons Zero v1.0 Universal (listed as "Public Domain" in the repository README)', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
      attribution: 'OSIS conversion (u2o.py) from the seven1m/open-bibles repository, listed there as Public Domain.',
    },
  ],
  inputs: {
    osis: {
      kind: 'url',
      url: URL_OEB,
      sha256: 'a3f61aababbf4c4fcefc9324e5a86f94e3367965bb4074c290826bfda5f10646',
      format: 'text',
    },
  },
  read,
};

export default oeb;
