import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { SUBMISSION_CIKS, type CompanyRecord } from '../sources/public-companies/index.ts';
import { lastDataReceived, parseCompanyIndex, parseMasterIndex } from '../sources/public-companies/edgar.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

const dir = new URL('./fixtures/public-companies/', import.meta.url);
const text = (name: string) => fs.readFileSync(new URL(name, dir), 'utf8');
const json = (name: string) => JSON.parse(text(name));

/** Fresh raw inputs keyed as the source declares them (tests may mutate them). */
function fixtureRaw(): Record<string, any> {
  return {
    tickers: json('company_tickers.json'),
    tickersExchange: json('company_tickers_exchange.json'),
    masterIndex: text('master.20200103.idx'),
    companyIndex: text('company.20200102.idx'),
    submissions_CIK0001350694: json('CIK0001350694.json'),
    submissions_CIK0002012383: json('CIK0002012383.json'),
  };
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validate = ajv.compile(source.schema);
function expectValid(records: CompanyRecord[]) {
  const keys = Object.keys(source.schema.properties);
  for (const r of records) {
    if (!validate(r as unknown)) expect.fail(`${r.id}: ${ajv.errorsText(validate.errors)}`);
    expect(Object.keys(r)).toEqual(keys);
  }
}
const byId = (records: CompanyRecord[]) => new Map(records.map((r) => [r.id, r]));
const NO_PROFILE = { sic: null, sic_description: null, state_of_incorporation: null, fiscal_year_end: null, former_names: null };
const NOT_FILING = { form: null, filing_date: null, report_date: null, primary_document: null, document_url: null };
const NOT_FILER = { tickers: null, exchanges: null, ...NO_PROFILE };

describe('public-companies normalise (fixtures)', () => {
  const records = source.normalise(fixtureRaw());
  const map = byId(records);

  it('makes one filer per CIK across both ticker files and submissions, and one filing per accession', () => {
    expectValid(records);
    expect(records.filter((r) => r.kind === 'filer').map((r) => r.id).sort()).toEqual([
      '0001045810', '0001067983', '0001350694', '0001362988', '0001423210', '0001652044', '0001708331', '0002012383',
    ]);
    // 4 + 2 submissions filings, 6 master accessions (one listed under two CIKs), 5 company-index rows.
    expect(records.filter((r) => r.kind === 'filing')).toHaveLength(17);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });

  it('merges tickers per CIK, in the SEC order, with their exchanges', () => {
    expect(map.get('0001652044')).toEqual({
      id: '0001652044', kind: 'filer', cik: '0001652044', ciks: ['0001652044'], name: 'Alphabet Inc.',
      tickers: ['GOOGL', 'GOOG'], exchanges: ['Nasdaq'], ...NO_PROFILE, ...NOT_FILING,
      url: 'https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0001652044',
    });
    expect(map.get('0001362988')).toMatchObject({ name: 'Aircastle LTD', tickers: ['AYR'], exchanges: [] }); // exchange null upstream
    expect(map.get('0001423210')).toMatchObject({ tickers: ['ARZXD'], exchanges: [] }); // only in company_tickers.json
    expect(map.get('0001708331')).toMatchObject({ name: 'Virpax Pharmaceuticals, Inc.', tickers: ['VRPX'], exchanges: ['OTC'] });
  });

  it('enriches filers from submissions, and adds submitted filers without a ticker', () => {
    expect(map.get('0002012383')).toEqual({
      id: '0002012383', kind: 'filer', cik: '0002012383', ciks: ['0002012383'], name: 'BlackRock, Inc.',
      tickers: ['BLK'], exchanges: ['NYSE'], sic: '6211', sic_description: 'Security Brokers, Dealers & Flotation Companies',
      state_of_incorporation: 'DE', fiscal_year_end: '1231',
      former_names: [
        { name: 'BlackRock, Inc.', from: '2024-10-01T04:00:00.000Z', to: '2025-08-01T04:00:00.000Z' },
        { name: 'BlackRock Funding, Inc. /DE', from: '2024-02-20T05:00:00.000Z', to: '2024-10-01T04:00:00.000Z' },
      ],
      ...NOT_FILING, url: 'https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0002012383',
    });
    expect(map.get('0001350694')).toMatchObject({
      name: 'Bridgewater Associates, LP', tickers: [], exchanges: [], sic: null, state_of_incorporation: 'DE',
      former_names: [{ name: 'Bridgewater Associates, Inc.', from: '2006-02-14T05:00:00.000Z', to: '2010-02-08T05:00:00.000Z' }],
    });
  });

  it('reads submissions filings with report date and primary document', () => {
    expect(map.get('0001127602-25-019888')).toEqual({
      id: '0001127602-25-019888', kind: 'filing', cik: '0002012383', ciks: ['0002012383'], name: 'BlackRock, Inc.', ...NOT_FILER,
      form: '4', filing_date: '2025-08-01', report_date: '2025-07-30', primary_document: 'xslF345X05/form4.xml',
      url: 'https://www.sec.gov/Archives/edgar/data/2012383/0001127602-25-019888.txt',
      document_url: 'https://www.sec.gov/Archives/edgar/data/2012383/000112760225019888/xslF345X05/form4.xml',
    });
    expect(map.get('0002052113-25-003375')).toMatchObject({ form: 'SCHEDULE 13G/A', report_date: null });
  });

  it('reads both daily indexes; a filing listed under several CIKs keeps all, named by the lowest', () => {
    expect(map.get('0001209191-20-000788')).toEqual({
      id: '0001209191-20-000788', kind: 'filing', cik: '0001000229', ciks: ['0001000229', '0001282547'], name: 'CORE LABORATORIES N V',
      ...NOT_FILER, form: '4', filing_date: '2020-01-03', report_date: null, primary_document: null,
      url: 'https://www.sec.gov/Archives/edgar/data/1000229/0001209191-20-000788.txt', document_url: null,
    });
    expect(map.get('0000000000-18-039014')).toMatchObject({ form: 'UPLOAD', filing_date: '2018-12-21', name: 'Grana & Montero S.A.A.' });
    expect(map.get('0001193125-20-000165')).toMatchObject({ cik: '0001741530', name: '360 Finance, Inc.', form: 'SC 13D/A', filing_date: '2020-01-02' });
    expect(map.get('0001794159-20-000001')).toMatchObject({ name: 'Blue Trend ASP Fund, a series of Alternative Strategies Mana', form: 'D/A' });
  });

  it('a filing in both submissions and an index takes submissions\' fields and every CIK', () => {
    const raw = fixtureRaw();
    raw.masterIndex += '2012383|BlackRock Funding, Inc. /DE|4|20250801|edgar/data/2012383/0001127602-25-019888.txt\n'
      + '1086364|BLACKROCK INC.|4|20250801|edgar/data/1086364/0001127602-25-019888.txt\n';
    const r = byId(source.normalise(raw)).get('0001127602-25-019888')!;
    expect(r).toMatchObject({ cik: '0002012383', ciks: ['0001086364', '0002012383'], name: 'BlackRock, Inc.', report_date: '2025-07-30' });
  });

  it('builds without the optional submissions', () => {
    const raw = fixtureRaw();
    for (const c of SUBMISSION_CIKS) delete raw[`submissions_CIK${c}`];
    const m = byId(source.normalise(raw));
    expect(m.has('0001350694')).toBe(false);
    expect(m.get('0002012383')).toMatchObject({ name: 'BlackRock, Inc.', tickers: ['BLK'], ...NO_PROFILE });
    expect([...m.values()].filter((r) => r.kind === 'filing')).toHaveLength(11);
  });

  it('aliases, order, upstream time', () => {
    expect(source.aliases!(map.get('0001652044')!)).toEqual(['1652044', 'GOOGL', 'GOOG']);
    expect(source.aliases!(map.get('0001209191-20-000788')!)).toEqual(['000120919120000788']);
    const ordered = [...records].sort((a, b) => source.order!(a, b) || (a.id < b.id ? -1 : 1));
    expect(ordered.slice(0, 2).map((r) => r.id)).toEqual(['0001045810', '0001067983']);
    expect(ordered.findIndex((r) => r.kind === 'filing')).toBe(8);
    expect(ordered[8].filing_date).toBe('2025-08-01');
    expect(ordered.at(-1)!.filing_date).toBe('2018-12-21');
    expect(source.upstreamTime!(fixtureRaw())).toBeNull();
    expect(lastDataReceived(text('master.20200103.idx'))).toBe('2020-01-03');
  });

  it('fails naming file, row and field on unexpected shapes', () => {
    const bad = (mutate: (raw: Record<string, any>) => void, message: RegExp) => {
      const raw = fixtureRaw();
      mutate(raw);
      expect(() => source.normalise(raw)).toThrow(message);
    };
    bad((r) => { r.masterIndex = r.masterIndex.replace('|SC 14D9/A|20200103', '|SC 14D9/A'); }, /master\.20200103\.idx row 9 field \(columns\)/);
    bad((r) => { r.masterIndex = r.masterIndex.replace('78150|PLDT Inc.|6-K|20200103', '78150|PLDT Inc.|6-K|20201303'); }, /master\.20200103\.idx row 13 field Date Filed: unexpected "20201303"/);
    bad((r) => { r.masterIndex = r.masterIndex.replace('9984|BARNES', '9985|BARNES'); }, /row 14 field File Name \(CIK differs/);
    bad((r) => { r.companyIndex = r.companyIndex.replace('edgar/data/893739/0001296720-20-000002.txt', 'edgar/data/893739/0001296720-20-2.txt'); }, /company\.20200102\.idx row 13 field File Name/);
    bad((r) => { r.tickers['2'].cik_str = 'Berkshire'; }, /company_tickers\.json entry "2" field cik_str: unexpected "Berkshire"/);
    bad((r) => { r.tickers['1'].sector = 'Tech'; }, /company_tickers\.json entry "1" field sector/);
    bad((r) => { r.tickersExchange.data[4] = [1362988, 'Aircastle LTD', 'AYR']; }, /company_tickers_exchange\.json data\[4\] field \(row length\)/);
    bad((r) => { r.submissions_CIK0002012383.filings.recent.form.pop(); }, /CIK0002012383\.json field filings\.recent\.form \(length 3, not 4\)/);
    bad((r) => { r.submissions_CIK0002012383.filings.recent.filingDate[2] = '08/01/2025'; }, /filings\.recent\[2\] field filingDate/);
    bad((r) => { r.submissions_CIK0001350694.cik = '0002012383'; }, /CIK0001350694\.json field cik \(not the CIK of the URL\)/);
  });

  it('parsers keep file order and every row', () => {
    expect(parseMasterIndex('m', text('master.20200103.idx')).map((r) => r.cik)).toEqual(
      ['0001000229', '0001019695', '0001019695', '0001282547', '0001572621', '0000078150', '0000009984']);
    expect(parseCompanyIndex('c', text('company.20200102.idx')).map((r) => r.form)).toEqual(['D', '4', '424B3', 'SC 13D/A', 'D/A']);
  });

  it('declares live SEC inputs and the pinned daily indexes', () => {
    expect(source.inputs.tickers).toEqual({ kind: 'live', url: 'https://www.sec.gov/files/company_tickers.json', format: 'json' });
    expect(source.inputs.submissions_CIK0002012383).toMatchObject({ kind: 'live', url: 'https://data.sec.gov/submissions/CIK0002012383.json', optional: true });
    expect(source.inputs.masterIndex).toMatchObject({ kind: 'url', sha256: '73c1369c4c7c8e27e750604ff1ee514e4e2148beb4fcaf0c0a013b9e31e3d8b9' });
    expect(source.views!.map((v) => [v.segment, v.filter])).toEqual([['filers', { kind: 'filer' }], ['filings', { kind: 'filing' }]]);
  });
});

describe('public-companies on the mirrored SEC files', () => {
  const file = (p: string) => path.join(MIRROR_ROOT ?? '', p);
  const mirrorRaw = () => {
    const raw: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(source.inputs)) {
      if (spec.kind !== 'url' && spec.kind !== 'live') continue;
      const u = new URL(spec.url);
      const body = fs.readFileSync(file(`${u.host}${u.pathname}`), 'utf8');
      raw[name] = spec.format === 'json' ? JSON.parse(body) : body;
    }
    return raw;
  };

  it.skipIf(!MIRROR_ROOT)(`pinned sha256s match the mirror ${NEEDS_MIRROR}`, () => {
    for (const spec of Object.values(source.inputs)) {
      if (spec.kind !== 'url') continue;
      const u = new URL(spec.url);
      expect(createHash('sha256').update(fs.readFileSync(file(`${u.host}${u.pathname}`))).digest('hex')).toBe(spec.sha256);
    }
  });

  it.skipIf(!MIRROR_ROOT)(`normalises every real file into valid records ${NEEDS_MIRROR}`, () => {
    const records = source.normalise(mirrorRaw());
    expectValid(records);
    const filers = records.filter((r) => r.kind === 'filer');
    const filings = records.filter((r) => r.kind === 'filing');
    expect(filers).toHaveLength(7881); // 7,880 ticker CIKs + Bridgewater (submissions only)
    expect(filings).toHaveLength(11334); // 96 + 3,933 submissions, 7,305 distinct index accessions
    expect(filings.filter((r) => r.primary_document !== null)).toHaveLength(96 + 3933);
    const m = byId(records);
    expect(m.get('0000320193')).toMatchObject({ name: 'Apple Inc.', tickers: ['AAPL'], exchanges: ['Nasdaq'] });
    expect(m.get('0001067983')).toMatchObject({ tickers: ['BRK-B', 'BRK-A'], exchanges: ['NYSE'] });
    expect(m.get('0002012383')).toMatchObject({ sic: '6211', tickers: ['BLK'] });
    expect(m.get('0001564590-20-000156')).toMatchObject({ cik: '0000078150', name: 'PLDT Inc.', form: '6-K', filing_date: '2020-01-03' });
    expect(m.get('0001140361-20-000124')!.ciks).toHaveLength(11);
    const indexFilings = filings.filter((r) => r.primary_document === null);
    expect(indexFilings).toHaveLength(7305); // master: 7,989 rows = 4,655 accessions; company: 4,441 rows = 2,650; none shared
    expect(indexFilings.filter((r) => r.ciks.length > 1).length).toBeGreaterThan(3000);
  });
});
