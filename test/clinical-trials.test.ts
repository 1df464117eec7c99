import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { FIELDS, MAX_PAGES, STUDIES_URL, studyPages, type TrialRecord } from '../sources/clinical-trials.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, fakeUpstream, loopbackGet } from './helpers.ts';

const fixtureText = (name: string) => fs.readFileSync(new URL(`./fixtures/clinical-trials/${name}`, import.meta.url), 'utf8');
const fixture = (name: string) => JSON.parse(fixtureText(name));
const byId = (records: TrialRecord[]) => new Map(records.map((r) => [r.id, r]));

function expectValid(records: TrialRecord[]) {
  const check = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);
  for (const r of records) {
    expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
  }
}

describe('clinical-trials source', () => {
  it('declares a paged live input with the download variant, an optional version input, and valid filters', () => {
    expect(source.id).toBe('clinical-trials');
    expect(source.contractVersion).toBe('0.1.0');
    expect(source.inputs.studies).toMatchObject({ kind: 'live', url: STUDIES_URL, format: 'json', variants: ['https://clinicaltrials.gov/api/v2/studies/ctg-studies.json'] });
    expect(source.inputs.version).toEqual({ kind: 'live', url: 'https://clinicaltrials.gov/api/v2/version', format: 'json', optional: true });
    expect(Object.keys(source.schema.properties)[0]).toBe('id');
    for (const f of source.search.fields) expect(Object.keys(source.schema.properties)).toContain(f);
    for (const f of source.filters) expect(Object.keys(source.schema.properties)).toContain(f.field);
    expect(source.filters.map((f) => f.param)).toEqual(['status', 'phase', 'condition', 'sponsor', 'study_type', 'country', 'from', 'to']);
    expect(source.provenance[0].licence.url).toBe('https://clinicaltrials.gov/about-site/terms-conditions');
  });
});

describe('clinical-trials country filter (issue 36, item 11: ?country=USA answered an empty list)', () => {
  const require = createRequire(import.meta.url);
  const raw = {
    worldCountries: require('world-countries/countries.json'), enTerritories: require('cldr-localenames-full/main/en/territories.json'),
    countryCodes: require('cldr-core/supplemental/codeMappings.json'),
  };
  const filter = source.filters.find((f) => f.param === 'country')!;
  const aliases = filter.valueAliases!(raw);

  it('takes the registry\'s country names in any case, and each country\'s alpha-2, alpha-3 and numeric codes', () => {
    expect(filter.caseInsensitive).toBe(true);
    expect(aliases('United States', {})).toEqual(['US', 'USA', '840']);
    expect(aliases('Korea, Republic of', {})).toEqual(['KR', 'KOR', '410']);
    expect(aliases('Turkey', {})).toEqual(['TR', 'TUR', '792']);
    expect(aliases('Nowhere Land', {})).toEqual([]);
  });

  it.skipIf(!MIRROR_ROOT)(`knows the code of every country the mirrored studies name ${NEEDS_MIRROR}`, () => {
    const file = path.join(MIRROR_ROOT!, 'clinicaltrials.gov/api/v2/studies/ctg-studies.json');
    const names = [...new Set(source.normalise({ studies: [JSON.parse(fs.readFileSync(file, 'utf8'))] }).flatMap((r) => r.countries))];
    expect(names.length).toBe(25);
    expect(names.filter((n) => aliases(n, {}).length !== 3)).toEqual([]);
  });
});

describe('clinical-trials normalise (API pages)', () => {
  const records = source.normalise({ studies: [fixture('api-page-1.json'), fixture('api-page-2.json')] });
  const map = byId(records);

  it('maps every study of every page, schema-valid, keys in schema order', () => {
    expect(records.map((r) => r.id)).toEqual(['NCT00934284', 'NCT04520009', 'NCT00939406']);
    expectValid(records);
  });

  it('maps the fields of a study with results and collaborators', () => {
    expect(map.get('NCT04520009')).toEqual({
      id: 'NCT04520009',
      title: 'EHR Embedded Comparative Effectiveness Studies--CPS',
      official_title: 'Randomize Everyone: Creating Valid Instrumental Variables for Learning Health Care Systems',
      status: 'COMPLETED', phases: ['NA'], study_type: 'INTERVENTIONAL',
      conditions: ['Disk Herniated Lumbar'], keywords: [],
      interventions: ['Activity Restriction', 'Activity as Tolerated'],
      sponsor: 'Dartmouth-Hitchcock Medical Center', sponsor_class: 'OTHER',
      collaborators: ['Trustees of Dartmouth College', 'Patient-Centered Outcomes Research Institute'],
      start_date: '2020-10-23', primary_completion_date: '2021-08-07', completion_date: '2021-10-27',
      first_posted: '2020-08-20', last_update_posted: '2024-03-01', enrollment: 37, has_results: true,
      countries: ['United States'],
      brief_summary: expect.stringMatching(/^Randomize Everyone is a research project/),
      url: 'https://clinicaltrials.gov/study/NCT04520009',
    });
  });

  it('keeps month-precision dates, empty phases for observational studies, and sorted unique countries', () => {
    expect(map.get('NCT00934284')).toMatchObject({ phases: [], study_type: 'OBSERVATIONAL', start_date: '2006-01', completion_date: '2008-02', enrollment: 44 });
    expect(map.get('NCT00939406')!.countries).toEqual(['Germany', 'Netherlands', 'Switzerland']);
    expect(map.get('NCT00939406')!.phases).toEqual(['PHASE2', 'PHASE3']);
  });

  it('orders newest update first', () => {
    expect([...records].sort(source.order).map((r) => r.last_update_posted)).toEqual(['2024-12-13', '2024-03-01', '2012-12-20']);
  });

  it('keeps the newer copy of a study that appears on two pages', () => {
    const older = fixture('api-page-1.json');
    older.studies[1].protocolSection.statusModule.lastUpdatePostDateStruct.date = '2023-01-01';
    older.studies[1].protocolSection.statusModule.overallStatus = 'ACTIVE_NOT_RECRUITING';
    const out = byId(source.normalise({ studies: [older, fixture('api-page-1.json')] }));
    expect(out.size).toBe(2);
    expect(out.get('NCT04520009')).toMatchObject({ status: 'COMPLETED', last_update_posted: '2024-03-01' });
  });
});

describe('clinical-trials normalise (website download variant)', () => {
  const records = source.normalise({ studies: [fixture('ctg-studies.json')] });

  it('reads the bare array of full study objects to the same records as the API pages', () => {
    expect(records.map((r) => r.id)).toEqual(['NCT00939406', 'NCT05752838', 'NCT00124774']);
    expectValid(records);
    const api = byId(source.normalise({ studies: [fixture('api-page-2.json')] }));
    expect(byId(records).get('NCT00939406')).toEqual(api.get('NCT00939406'));
  });

  it('gives null for a missing primary completion date', () => {
    expect(byId(records).get('NCT00124774')).toMatchObject({
      primary_completion_date: null, completion_date: '2006-04', phases: ['PHASE3'],
      collaborators: ['Maastricht University', 'ArthroCare Corporation'], countries: ['Netherlands'],
    });
  });
});

describe('clinical-trials errors', () => {
  it('names page, study and field of a malformed study', () => {
    const bad = fixture('api-page-1.json');
    bad.studies[1].protocolSection.identificationModule.nctId = 'NCT123';
    expect(() => source.normalise({ studies: [bad] })).toThrow(/studies page 0 study 1 field nctId: unexpected "NCT123"/);
    const noStatus = fixture('api-page-2.json');
    delete noStatus.studies[0].protocolSection.statusModule.overallStatus;
    expect(() => source.normalise({ studies: [fixture('api-page-1.json'), noStatus] })).toThrow(/studies page 1 study 0 \(NCT00939406\) field overallStatus/);
    const badEnrol = fixture('api-page-2.json');
    badEnrol.studies[0].protocolSection.designModule.enrollmentInfo.count = '45';
    expect(() => source.normalise({ studies: [badEnrol] })).toThrow(/enrollmentInfo.count: unexpected "45"/);
  });

  it('rejects a page that is neither the API envelope nor a bare array', () => {
    expect(() => source.normalise({ studies: [{ results: [] }] })).toThrow(/studies page 0 field studies/);
    expect(() => source.normalise({ studies: undefined })).toThrow(/field \(pages\)/);
  });
});

describe('clinical-trials upstreamTime', () => {
  it('reads the version endpoint dataTimestamp as UTC, null without it', () => {
    expect(source.upstreamTime!({ version: fixture('version.json') })).toBe('2026-09-04T09:00:06Z');
    expect(source.upstreamTime!({ studies: [] })).toBeNull();
    expect(() => source.upstreamTime!({ version: { apiVersion: '2.0.5', dataTimestamp: 'yesterday' } })).toThrow(/dataTimestamp/);
  });
});

describe('clinical-trials pages', () => {
  it('asks for the newest updates first and follows nextPageToken until it is absent', async () => {
    const up = await fakeUpstream((req) => {
      const q = new URL(req.url, 'http://x').searchParams;
      return { body: fixtureText(q.get('pageToken') ? 'api-page-2.json' : 'api-page-1.json') };
    });
    try {
      const bodies: Buffer[] = [];
      for await (const b of source.inputs.studies.kind === 'live' ? source.inputs.studies.pages!(loopbackGet(up.base)) : []) bodies.push(b);
      expect(bodies.map((b) => JSON.parse(b.toString()).studies.length)).toEqual([2, 1]);
      expect(up.requests).toHaveLength(2);
      const urls = up.requests.map((r) => new URL(r.url, 'http://x'));
      for (const u of urls) {
        expect(u.pathname).toBe('/clinicaltrials.gov/api/v2/studies');
        expect(u.searchParams.get('format')).toBe('json');
        expect(u.searchParams.get('pageSize')).toBe('1000');
        expect(u.searchParams.get('sort')).toBe('LastUpdatePostDate:desc');
        expect(u.searchParams.get('fields')).toBe(FIELDS.join(','));
      }
      expect(up.requests.every((r) => r.method === 'GET')).toBe(true);
      expect(urls[0].searchParams.has('pageToken')).toBe(false);
      expect(urls[1].searchParams.get('pageToken')).toBe('ZVNj7o2Elu8o3lpoWsOitutWl_CZ2uNzlbP7');
      // The pages as fetched normalise like the fixtures.
      expect(source.normalise({ studies: bodies.map((b) => JSON.parse(b.toString())) })).toHaveLength(3);
    } finally {
      await up.close();
    }
  });

  it('stops at the page cap even when the upstream offers more', async () => {
    let n = 0;
    const up = await fakeUpstream(() => ({ body: JSON.stringify({ studies: [], nextPageToken: `t${++n}` }) }));
    try {
      let count = 0;
      for await (const _ of studyPages(loopbackGet(up.base), 3)) count++;
      expect(count).toBe(3);
      expect(up.requests).toHaveLength(3);
      expect(new URL(up.requests[2].url, 'http://x').searchParams.get('pageToken')).toBe('t2');
      expect(MAX_PAGES).toBe(50);
    } finally {
      await up.close();
    }
  });
});

describe('clinical-trials mirror', () => {
  it.skipIf(!MIRROR_ROOT)(`normalises the mirrored ctg-studies.json download ${NEEDS_MIRROR}`, () => {
    const file = path.join(MIRROR_ROOT!, 'clinicaltrials.gov/api/v2/studies/ctg-studies.json');
    const records = source.normalise({ studies: [JSON.parse(fs.readFileSync(file, 'utf8'))] });
    expect(records).toHaveLength(100);
    expectValid(records);
    const count = (pred: (r: TrialRecord) => boolean) => records.filter(pred).length;
    expect(count((r) => r.status === 'COMPLETED')).toBe(100);
    expect(count((r) => r.study_type === 'INTERVENTIONAL')).toBe(80);
    expect(count((r) => r.has_results)).toBe(6);
    expect(count((r) => r.phases.includes('NA'))).toBe(60);
    expect(count((r) => r.countries.includes('Turkey'))).toBe(19);
    expect(count((r) => r.primary_completion_date === null)).toBe(4);
    expect(records.reduce((sum, r) => sum + (r.enrollment ?? 0), 0)).toBe(18368);
    const sorted = [...records].sort(source.order);
    expect([sorted[0].id, sorted[0].last_update_posted]).toEqual(['NCT00934284', '2024-12-13']);
    expect(byId(records).get('NCT01339377')).toMatchObject({
      title: 'Safety and Effectiveness Study of the AO-1000 Device to Treat Contained Herniated Discs',
      sponsor: 'ActiveO Inc.', sponsor_class: 'INDUSTRY', phases: ['PHASE1'], enrollment: 39,
      start_date: '2011-08', first_posted: '2011-04-20', countries: ['Canada'],
    });
  });
});
