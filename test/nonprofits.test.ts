import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { AREAS, normaliseNonprofits, streamNonprofits, subsectionLabel, type NonprofitRecord } from '../sources/nonprofits.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, tempDir } from './helpers.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/nonprofits/', import.meta.url));
const fixtureRaw = () => ({ eo_de: path.join(FIXTURES, 'eo_de.csv'), eo_vt: path.join(FIXTURES, 'eo_vt.csv') });
const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);

async function collect(raw: Record<string, unknown>): Promise<NonprofitRecord[]> {
  const out: NonprofitRecord[] = [];
  for await (const r of streamNonprofits(raw)) out.push(r);
  return out;
}

function expectValid(records: NonprofitRecord[]) {
  const keys = Object.keys(source.schema.properties);
  for (const r of records) {
    const id = r.id;
    if (!validate(r)) throw new Error(`${id}: ${JSON.stringify(validate.errors)}`);
    if (Object.keys(r).join() !== keys.join()) throw new Error(`${id}: key order ${Object.keys(r).join()}`);
  }
}

const tmp = tempDir('almanac-nonprofits-');
afterAll(() => cleanup(tmp));

/** The DE fixture with one line replaced (1 = first data row), written to a temp file. */
function brokenDe(line: number, edit: (l: string) => string): Record<string, string> {
  const lines = fs.readFileSync(path.join(FIXTURES, 'eo_de.csv'), 'utf8').split('\r\n');
  lines[line] = edit(lines[line]);
  const p = path.join(tmp, `eo_de-${line}-${Math.random().toString(36).slice(2)}.csv`);
  fs.writeFileSync(p, lines.join('\r\n'));
  return { eo_de: p };
}

describe('nonprofit-organizations source', () => {
  it('declares one optional live input per IRS per-area file, streamed from its path', () => {
    expect(source.id).toBe('nonprofit-organizations');
    expect(source.contractVersion).toBe('0.1.0');
    expect(Object.keys(source.inputs)).toHaveLength(53);
    expect(AREAS).toContain('dc');
    expect(AREAS).toContain('pr');
    expect(AREAS).toContain('xx');
    expect(source.inputs.eo_de).toEqual({ kind: 'live', url: 'https://www.irs.gov/pub/irs-soi/eo_de.csv', format: 'path', optional: true });
    expect(source.normaliseStream).toBeTypeOf('function');
    for (const k of ['order', 'aliases', 'links', 'summary'] as const) expect(source[k]).toBeUndefined();
    const props = Object.keys(source.schema.properties);
    expect(props[0]).toBe('id');
    for (const f of source.filters) expect(props).toContain(f.field);
    for (const f of source.search.fields) expect(props).toContain(f);
    expect(source.provenance[0].licence.spdx).toBe('LicenseRef-US-Gov-PD');
    expect(source.upstreamTime!(fixtureRaw())).toBeNull();
  });

  it('labels subsections only where the IRS code states the section', () => {
    expect(subsectionLabel('03')).toBe('501(c)(3)');
    expect(subsectionLabel('29')).toBe('501(c)(29)');
    expect(subsectionLabel('92')).toBe('4947(a)(1)');
    expect(subsectionLabel('91')).toBeNull();
    expect(subsectionLabel('00')).toBeNull();
  });
});

describe('nonprofit-organizations normalise (fixtures)', () => {
  const records = normaliseNonprofits(fixtureRaw());
  const byId = new Map(records.map((r) => [r.id, r]));

  it('maps IRS rows to records, files in input-name order, rows in file order', () => {
    expect(records.map((r) => r.id)).toEqual(['010548657', '026049010', '046998698', '136052647', '232954760', '461304925',
      '010180687', '030135419', '030185556']);
    expectValid(records);
    expect(byId.get('010548657')).toEqual({
      id: '010548657', ein: '010548657', name: 'KUEHNER BROTHERS FOUNDATION INC', care_of: 'FOUNDATION SOURCE',
      street: 'FOUNDATION SOURCE 501 SILVERSIDE RD', city: 'WILMINGTON', state: 'DE', zip: '19809', zip4: null,
      group: '0000', subsection: '03', subsection_label: '501(c)(3)', affiliation: '3', classification: '1000',
      ruling: '2003-03', deductibility: '1', foundation: '04', activity: '000000000', organization: '1', status: '01',
      tax_period: '2018-12', asset_amount: 1268966, income_amount: 8866, revenue_amount: null, ntee_code: 'T20',
      ntee_major: 'T', sort_name: null,
    });
    // Quoted name with a comma, a ZIP+4, 1945 ruling.
    expect(byId.get('030185556')).toMatchObject({
      name: 'NORTH COUNTRY HOSPITAL & HEALTH CENTER,INC', care_of: 'ANDRE BISSONNETTE', zip: '05855', zip4: '9326',
      ruling: '1945-10', revenue_amount: 86846769, ntee_code: 'E220', ntee_major: 'E', state: 'VT',
    });
  });

  it('keeps IRS placeholders as null and negative amounts as given', () => {
    expect(byId.get('026049010')).toMatchObject({ care_of: null, ruling: null, subsection: '92', subsection_label: '4947(a)(1)', ntee_code: null, ntee_major: null, revenue_amount: null });
    expect(byId.get('046998698')!.sort_name).toBe('9 681047260418');
    expect(byId.get('136052647')).toMatchObject({ subsection: '91', subsection_label: null, ruling: '1982-12' });
    expect(byId.get('232954760')!.revenue_amount).toBe(-127561);
    expect(byId.get('461304925')!.income_amount).toBe(-459490);
    expect(byId.get('030135419')).toMatchObject({ revenue_amount: -507, subsection_label: '501(c)(2)', care_of: null });
  });

  it('streams exactly the records normalise returns', async () => {
    expect(await collect(fixtureRaw())).toEqual(records);
  });

  it('skips absent optional files and requires at least one', () => {
    expect(normaliseNonprofits({ eo_vt: fixtureRaw().eo_vt })).toHaveLength(3);
    expect(() => normaliseNonprofits({})).toThrow(/none of the IRS EO BMF files/);
    expect(() => normaliseNonprofits({ eo_de: 42 })).toThrow(/input eo_de field \(path\)/);
  });

  it('fails naming file, row and field on malformed rows, in both paths', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [brokenDe(1, (l) => l.replace(',200303,', ',2003XX,')), /eo_de\.csv row 1 \(EIN 010548657\) field RULING: unexpected "2003XX"/],
      [brokenDe(2, (l) => l.replace(',201812,', ',201813,')), /eo_de\.csv row 2 \(EIN 026049010\) field TAX_PERIOD: unexpected "201813"/],
      [brokenDe(3, (l) => l.replace(',333762,', ',33x762,')), /eo_de\.csv row 3 \(EIN 046998698\) field ASSET_AMT/],
      [brokenDe(4, (l) => l.replace(',DE,', ',PA,')), /eo_de\.csv row 4 \(EIN 136052647\) field STATE \(file is by state\): unexpected "PA"/],
      [brokenDe(5, (l) => l.replace('19930-1301', '1993')), /eo_de\.csv row 5 \(EIN 232954760\) field ZIP/],
      [brokenDe(6, (l) => l.replace('W99', 'w99')), /eo_de\.csv row 6 \(EIN 461304925\) field NTEE_CD/],
      [brokenDe(2, (l) => l.replace(/,$/, ',,extra')), /eo_de\.csv row 2 field \(row\): unexpected "29 columns"/],
      [brokenDe(2, (l) => l.replace('026049010', '01054865')), /eo_de\.csv row 2 field EIN: unexpected "01054865"/],
      [brokenDe(2, (l) => l.replace('026049010', '010548657')), /eo_de\.csv row 2 \(EIN 010548657\) field EIN \(not ascending\)/],
      [brokenDe(0, (l) => l.replace('NTEE_CD', 'NTEE')), /eo_de\.csv header field NTEE_CD/],
      [brokenDe(1, (l) => l.replace('KUEHNER', '"KUEHNER')), /eo_de\.csv: /],
    ];
    for (const [raw, message] of cases) {
      expect(() => normaliseNonprofits(raw)).toThrow(message);
      await expect(collect(raw)).rejects.toThrow(message);
    }
  });

  it('keeps foreign postal codes and any state only in the international file', () => {
    const line = fs.readFileSync(path.join(FIXTURES, 'eo_de.csv'), 'utf8').split('\r\n');
    const p = path.join(tmp, 'eo_xx.csv');
    fs.writeFileSync(p, [line[0], line[1].replace(',DE,19809-0000,', ',,SW1A 1AA,')].join('\r\n'));
    expect(normaliseNonprofits({ eo_xx: p })[0]).toMatchObject({ state: null, zip: 'SW1A 1AA', zip4: null });
  });
});

describe('nonprofit-organizations on the mirrored IRS files', () => {
  const dir = MIRROR_ROOT && path.join(MIRROR_ROOT, 'www.irs.gov/pub/irs-soi');
  const raw = () => ({ eo_de: path.join(dir!, 'eo_de.csv'), eo_ri: path.join(dir!, 'eo_ri.csv'), eo_vt: path.join(dir!, 'eo_vt.csv') });

  it.skipIf(!MIRROR_ROOT)(`reads DE, RI and VT (2020-07 extract), stream and sync alike ${NEEDS_MIRROR}`, async () => {
    const records = normaliseNonprofits(raw());
    expect(records).toHaveLength(7483 + 8503 + 6208);
    const count = (st: string) => records.filter((r) => r.state === st).length;
    expect([count('DE'), count('RI'), count('VT')]).toEqual([7483, 8503, 6208]);
    expectValid(records);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(records.filter((r) => r.subsection === '03')).toHaveLength(6239 + 6190 + 4771);
    expect(records.filter((r) => r.ruling === null)).toHaveLength(55 + 615 + 32);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get('010561836')).toMatchObject({ name: 'KREATIVE MINDS INC', city: 'DOVER', zip: '19901', zip4: '4058', ntee_code: 'A20', revenue_amount: 0 });
    expect(byId.get('237363227')!.name).toBe('AUXILIARY OF PORTER MEDICAL CENTER,INC');
    expect(await collect(raw())).toEqual(records);
  });
});
