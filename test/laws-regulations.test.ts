import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { FR_FIELDS, FR_GIFTS_COPY, FR_GIFTS_PAGE, federalRegisterPages, type LawRecord } from '../sources/laws-regulations.ts';
import { sha256 } from '../pipeline/inputs.ts';
import { cachedLocation, mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, fakeUpstream, loopbackGet } from './helpers.ts';

const dir = new URL('./fixtures/laws-regulations/', import.meta.url);
const text = (name: string) => fs.readFileSync(new URL(name, dir), 'utf8');
const json = (name: string) => JSON.parse(text(name));
const PAGE1 = 'fr-documents-2025-01-page1.json';
const PAGE2 = 'fr-documents-2025-01-page2.json';
/** An excerpt (3 of 20 results) of the mirrored search page: test/fixtures/laws-regulations/README.md. */
const GIFTS = 'fr-gifts-search-page1.json';

function fixtureRaw(): Record<string, any> {
  return { titles: json('ecfr-titles.json'), documents: [json(PAGE1), json(PAGE2)] };
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validate = ajv.compile(source.schema);
function expectValid(records: LawRecord[]) {
  const keys = Object.keys(source.schema.properties);
  for (const r of records) {
    if (!validate(r as unknown)) expect.fail(`${r.id}: ${ajv.errorsText(validate.errors)}`);
    expect(Object.keys(r)).toEqual(keys);
  }
}
const byId = (records: LawRecord[]) => new Map(records.map((r) => [r.id, r]));
const NOT_DOC = { type: null, abstract: null, publication_date: null, agencies: null, agency_slugs: null, citation: null, pdf_url: null };
const NOT_TITLE = { number: null, latest_amended_on: null, latest_issue_date: null, up_to_date_as_of: null, reserved: null, processing_in_progress: null };

describe('laws-regulations normalise (fixtures)', () => {
  const records = source.normalise(fixtureRaw());
  const map = byId(records);

  it('reads eCFR titles and de-duplicated Federal Register documents', () => {
    expectValid(records);
    expect(records.filter((r) => r.kind === 'title').map((r) => r.id)).toEqual(['title-1', 'title-3', 'title-35', 'title-40', 'title-50']);
    expect(records.filter((r) => r.kind === 'document').map((r) => r.id).sort()).toEqual(['2025-00213', '2025-00470', '2025-01187', '2025-01650', '2025-01901']);
  });

  it('title records', () => {
    expect(map.get('title-40')).toEqual({
      id: 'title-40', kind: 'title', number: 40, title: 'Protection of Environment', ...NOT_DOC,
      html_url: 'https://www.ecfr.gov/current/title-40', latest_amended_on: '2025-02-10', latest_issue_date: '2025-02-11',
      up_to_date_as_of: '2025-02-13', reserved: false, processing_in_progress: false,
    });
    expect(map.get('title-35')).toMatchObject({ title: 'Reserved', reserved: true, html_url: null, latest_amended_on: null, up_to_date_as_of: null });
  });

  it('document records: agency names and slugs, null abstract, unmatched agency', () => {
    expect(map.get('2025-01650')).toEqual({
      id: '2025-01650', kind: 'document', title: 'Certain Softwood Lumber Products From Canada: Final Results of Antidumping Duty Administrative Review; 2022',
      type: 'Notice', ...NOT_TITLE,
      abstract: expect.stringMatching(/^The U\.S\. Department of Commerce \(Commerce\) determines/),
      publication_date: '2025-01-29', agencies: ['Commerce Department', 'International Trade Administration'],
      agency_slugs: ['commerce-department', 'international-trade-administration'], citation: '90 FR 8402',
      html_url: 'https://www.federalregister.gov/documents/2025/01/29/2025-01650/certain-softwood-lumber-products-from-canada-final-results-of-antidumping-duty-administrative-review-2022',
      pdf_url: 'https://www.govinfo.gov/content/pkg/FR-2025-01-29/pdf/2025-01650.pdf',
    });
    expect(map.get('2025-01901')).toMatchObject({ type: 'Presidential Document', abstract: null, agency_slugs: ['executive-office-of-the-president'] });
    expect(map.get('2025-00213')).toMatchObject({ agencies: ['NATIONAL TRANSPORTATION SAFETY BOARD PUBLIC MEETING'], agency_slugs: [] });
  });

  it('the documents input is optional; an empty month has no results', () => {
    const raw = fixtureRaw();
    delete raw.documents;
    expect(source.normalise(raw).map((r) => r.kind)).toEqual(Array(5).fill('title'));
    expect(source.normalise({ ...fixtureRaw(), documents: [{ count: 0, description: 'none' }] })).toHaveLength(5);
  });

  it('orders titles by number, then documents newest first; upstream time from eCFR meta.date', () => {
    const ordered = [...records].sort((a, b) => source.order!(a, b) || (a.id < b.id ? -1 : 1));
    expect(ordered.map((r) => r.id)).toEqual(['title-1', 'title-3', 'title-35', 'title-40', 'title-50', '2025-01187', '2025-01650', '2025-01901', '2025-00470', '2025-00213']);
    expect(source.upstreamTime!(fixtureRaw())).toBe('2025-02-13T00:00:00Z');
    expect(source.upstreamTime!({ documents: [] })).toBeNull();
  });

  it('fails naming file, row and field on unexpected shapes', () => {
    const bad = (mutate: (raw: Record<string, any>) => void, message: RegExp) => {
      const raw = fixtureRaw();
      mutate(raw);
      expect(() => source.normalise(raw)).toThrow(message);
    };
    bad((r) => { r.titles.titles[1].number = '3'; }, /eCFR titles\.json titles\[1\] field number: unexpected "3"/);
    bad((r) => { r.titles.titles[0].chapters = 3; }, /titles\[0\] field chapters/);
    bad((r) => { r.titles.titles[3].latest_issue_date = '02/11/2025'; }, /titles\[3\] field latest_issue_date/);
    bad((r) => { delete r.documents[0].results[2].document_number; }, /Federal Register page 0 results\[2\] field document_number: unexpected undefined/);
    bad((r) => { r.documents[1].results[1].agencies[0].acronym = 'DOT'; }, /page 1 results\[1\] agencies\[0\] field acronym/);
    bad((r) => { r.documents[1].results[0].publication_date = '2025-1-29'; }, /page 1 results\[0\] field publication_date/);
    bad((r) => { r.documents[0].results = {}; }, /Federal Register page 0 field results/);
  });
});

describe('laws-regulations: the saved page of the documents API (issue 37, item 3)', () => {
  it('is a pinned, optional input: the publisher\'s search URL first, the saved copy as the fallback, cached apart from the live endpoint', () => {
    expect(source.inputs.documents_page).toEqual({
      kind: 'url', url: FR_GIFTS_PAGE, sha256: '35e082c41cad1a2ff6c75638a9ba32275e1cfca0898a4b055efe1b2f2677347a', format: 'json', optional: true, copies: [FR_GIFTS_COPY],
    });
    expect(FR_GIFTS_PAGE).toMatch(/^https:\/\/www\.federalregister\.gov\/api\/v1\/documents\.json\?conditions\[agencies\]\[\]=state-department&/);
    const env = { ALMANAC_CACHE: '/c' };
    expect(cachedLocation(FR_GIFTS_PAGE, env)).not.toBe(cachedLocation('https://www.federalregister.gov/api/v1/documents.json', env));
    expect(cachedLocation(FR_GIFTS_PAGE, env)).toMatch(/^\/c\/www\.federalregister\.gov\/api\/v1\/documents\.json@[0-9a-f]{16}$/);
  });

  it('serves its documents with the titles, found by search fields; a document the live year also has keeps the live copy', () => {
    const records = source.normalise({ titles: json('ecfr-titles.json'), documents_page: json(GIFTS) });
    expectValid(records);
    const docs = byId(records.filter((r) => r.kind === 'document'));
    expect([...docs.keys()].sort()).toEqual(['2024-09344', '2024-31509', 'E8-29759']);
    expect(docs.get('2024-31509')).toMatchObject({
      type: 'Notice', publication_date: '2025-01-03', agencies: ['State Department'], agency_slugs: ['state-department'], abstract: null, citation: null,
      title: 'Gifts to Federal Employees From Foreign Government Sources Reported to Employing Agencies in Calendar Year 2023',
      pdf_url: 'https://www.govinfo.gov/content/pkg/FR-2025-01-03/pdf/2024-31509.pdf',
    });
    expect(docs.get('E8-29759')!.publication_date).toBe('2008-12-22');
    const live = json(PAGE1);
    live.results[0] = { ...json(GIFTS).results[0], title: 'The live copy' };
    const both = byId(source.normalise({ titles: json('ecfr-titles.json'), documents: [live, json(PAGE2)], documents_page: json(GIFTS) }));
    expect(both.get('2024-31509')!.title).toBe('The live copy');
    // The live month's first document stood in for by 2024-31509: its 4 others, and the saved page's 3 (one shared).
    expect([...both.values()].filter((r) => r.kind === 'document')).toHaveLength(4 + 3);
  });

  it.skipIf(!MIRROR_ROOT)(`the whole mirrored page: its 20 documents, schema-valid ${NEEDS_MIRROR}`, () => {
    const buf = fs.readFileSync(mirrorLocation(FR_GIFTS_COPY, MIRROR_ROOT!));
    expect(sha256(buf)).toBe((source.inputs.documents_page as { sha256: string }).sha256);
    const page = JSON.parse(buf.toString('utf8'));
    const docs = source.normalise({ titles: json('ecfr-titles.json'), documents_page: page }).filter((r) => r.kind === 'document');
    expectValid(docs);
    expect(page.results).toHaveLength(20);
    expect(docs).toHaveLength(20);
    expect(docs.map((r) => r.publication_date).sort()[0]).toBe('2008-12-22');
  });
});

describe('laws-regulations Federal Register paging', () => {
  afterEach(() => { vi.useRealTimers(); });

  async function serve(pages: Record<string, unknown>) {
    return fakeUpstream((req) => {
      const u = new URL(req.url, 'http://loopback');
      const key = `${u.searchParams.get('conditions[publication_date][gte]')}#${u.searchParams.get('page') ?? '1'}`;
      return key in pages ? { body: JSON.stringify(pages[key]) } : { status: 404, body: '{}' };
    });
  }

  it('requests each month of the year so far with explicit fields, following next_page_url', async () => {
    const up = await serve({ '2025-01-01#1': json(PAGE1), '2025-01-01#2': json(PAGE2), '2025-02-01#1': { count: 0, description: 'none', total_pages: 0, results: [] } });
    try {
      const bodies: Buffer[] = [];
      for await (const b of federalRegisterPages(loopbackGet(up.base), new Date('2025-02-10T12:00:00Z'))) bodies.push(b);
      expect(up.requests.map((r) => [r.method, new URL(r.url, 'http://l').pathname])).toEqual(Array(3).fill(['GET', '/www.federalregister.gov/api/v1/documents.json']));
      const q = up.requests.map((r) => new URL(r.url, 'http://l').searchParams);
      expect([q[0].get('per_page'), q[0].get('order'), q[0].get('page')]).toEqual(['1000', 'newest', null]);
      expect(q[0].getAll('fields[]')).toEqual(FR_FIELDS);
      expect([q[0].get('conditions[publication_date][gte]'), q[0].get('conditions[publication_date][lte]')]).toEqual(['2025-01-01', '2025-01-31']);
      expect(q[1].get('page')).toBe('2'); // the upstream's own next_page_url, as given
      expect([q[2].get('conditions[publication_date][gte]'), q[2].get('conditions[publication_date][lte]')]).toEqual(['2025-02-01', '2025-02-28']);
      const docs = source.normalise({ titles: json('ecfr-titles.json'), documents: bodies.map((b) => JSON.parse(b.toString('utf8'))) });
      expect(docs.filter((r) => r.kind === 'document')).toHaveLength(5);
    } finally {
      await up.close();
    }
  });

  it('the declared input pages the current year up to today', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-01-20T08:00:00Z'));
    const up = await serve({ '2025-01-01#1': json(PAGE1), '2025-01-01#2': json(PAGE2) });
    try {
      const spec = source.inputs.documents;
      if (spec.kind !== 'live' || !spec.pages) throw new Error('documents must be a paged live input');
      expect(spec).toMatchObject({ url: 'https://www.federalregister.gov/api/v1/documents.json', optional: true });
      let n = 0;
      for await (const _ of spec.pages(loopbackGet(up.base))) n++;
      expect(n).toBe(2);
      expect(up.requests).toHaveLength(2);
    } finally {
      await up.close();
    }
  });

  it('refuses a month the API cannot page completely, a foreign next_page_url and a paging loop', async () => {
    const run = async (pages: Record<string, unknown>) => {
      const up = await serve(pages);
      try {
        for await (const _ of federalRegisterPages(loopbackGet(up.base), new Date('2025-01-05T00:00:00Z')));
      } finally {
        await up.close();
      }
    };
    await expect(run({ '2025-01-01#1': { ...json(PAGE1), count: 10000 } })).rejects.toThrow(/2025-01 page 1 field count \(the API pages only 10000 results\)/);
    await expect(run({ '2025-01-01#1': { ...json(PAGE1), next_page_url: 'https://example.org/api/v1/documents.json?page=2' } })).rejects.toThrow(/field next_page_url/);
    const loop = { ...json(PAGE1), next_page_url: 'https://www.federalregister.gov/api/v1/documents.json?conditions[publication_date][gte]=2025-01-01&page=2' };
    await expect(run({ '2025-01-01#1': json(PAGE1), '2025-01-01#2': loop })).rejects.toThrow(/page 4 field \(paging: next_page_url repeats/);
  });
});

describe('laws-regulations on the mirrored eCFR titles', () => {
  it.skipIf(!MIRROR_ROOT)(`normalises the real titles.json ${NEEDS_MIRROR}`, () => {
    const titles = JSON.parse(fs.readFileSync(path.join(MIRROR_ROOT ?? '', 'www.ecfr.gov/api/versioner/v1/titles.json'), 'utf8'));
    const records = source.normalise({ titles });
    expectValid(records);
    expect(records).toHaveLength(50);
    expect(records.filter((r) => r.reserved).map((r) => r.id)).toEqual(['title-35']);
    expect(byId(records).get('title-1')).toMatchObject({ title: 'General Provisions', latest_amended_on: '2022-12-29', up_to_date_as_of: '2025-02-13' });
    expect(source.upstreamTime!({ titles })).toBe('2025-02-13T00:00:00Z');
  });
});
