import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import source, { federalAgencies, stateOrganisations, type AgencyRecord } from '../sources/agencies.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, quiet, startServer, tempDir } from './helpers.ts';
import { serveFixtures, type FixtureServer } from './fixture-release.ts';

const FR = fileURLToPath(new URL('./fixtures/agencies/agencies.json', import.meta.url));
const DOTGOV = fileURLToPath(new URL('./fixtures/agencies/current-full.csv', import.meta.url));
const fr = () => JSON.parse(fs.readFileSync(FR, 'utf8'));
const dotgov = () => fs.readFileSync(DOTGOV, 'utf8');
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validate = ajv.compile(source.schema);

describe('agencies normalise (fixtures)', () => {
  const records = source.normalise({ federal: fr(), dotgov: dotgov() });
  const by = new Map(records.map((r) => [r.id, r]));

  it('makes valid records of both levels', () => {
    for (const r of records) {
      if (!validate(r as unknown)) expect.fail(`${r.id}: ${ajv.errorsText(validate.errors)}`);
      expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
    }
    expect(records.filter((r) => r.level === 'federal')).toHaveLength(3);
  });

  it('federal: slug ids, parent and children as slugs', () => {
    expect(by.get('international-development-cooperation-agency')).toMatchObject({
      level: 'federal', short_name: 'IDCA', parent: 'agency-for-international-development', federal_register_id: 258,
    });
    expect(by.get('agency-for-international-development')!.children).toEqual(['international-development-cooperation-agency']);
    expect(by.get('environmental-protection-agency')).toMatchObject({ website: 'http://www.epa.gov/', url: 'https://www.federalregister.gov/agencies/environmental-protection-agency' });
  });

  it('state: one record per organisation and state, spellings merged, election domains marked, other domain types left out', () => {
    const wy = by.get('wy-state-of-wyoming')!;
    expect(wy).toMatchObject({ level: 'state', name: 'State of Wyoming', state: 'WY', cities: ['Cheyenne'] });
    expect(wy.domains).toHaveLength(15); // "State of Wyoming", "State Of  Wyoming", "State of wyoming", "State Of wyoming", "State of Wyoming "
    expect(by.get('al-alabama-secretary-of-state')!.election_domains).toEqual(['alabamavotes.gov']);
    expect(by.get('az-state-of-arizona-executive-branch')!.suborganizations).toEqual(['Department of Economic Security']);
    expect(records.some((r) => r.domains.includes('29palms.gov'))).toBe(false); // a City domain
  });

  it('never serves the security contact e-mail column', () => {
    expect(dotgov()).toMatch(/ets-security@wyo\.gov/);
    expect(JSON.stringify(records)).not.toMatch(/@/);
  });

  it('fails naming file, line and field on a changed header, a bad state or an unknown agency key', () => {
    expect(() => stateOrganisations(dotgov().replace('Security contact email', 'Contact'))).toThrow(/current-full\.csv header field column 7/);
    expect(() => stateOrganisations(dotgov().replace(',Cheyenne,WY,', ',Cheyenne,Wyoming,'))).toThrow(/current-full\.csv line \d+ field State/);
    const bad = fr();
    bad[1].logo_url = null;
    expect(() => federalAgencies(bad)).toThrow(/agencies\.json \[1\] field \(keys\)/);
    const orphan = fr();
    orphan[1].parent_id = 99999;
    expect(() => federalAgencies(orphan)).toThrow(/\[1\] field parent_id/);
  });
});

describe('agencies served from the fixtures', () => {
  let srv: FixtureServer;
  beforeAll(async () => {
    srv = await serveFixtures([{ source, files: { federal: FR, dotgov: DOTGOV } }]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('lists federal agencies first; level=state gives the state records', async () => {
    const all = await srv.get('/apis/agencies?limit=100');
    expect(all.body.data.slice(0, 3).map((r: AgencyRecord) => r.level)).toEqual(['federal', 'federal', 'federal']);
    const state = await srv.get('/apis/agencies?level=state&limit=100');
    expect(state.body.data.every((r: AgencyRecord) => r.level === 'state')).toBe(true);
    expect(state.body.meta.total).toBe(all.body.meta.total - 3);
    expect((await srv.get('/apis/agencies?level=state&state=wy')).body.data.map((r: AgencyRecord) => r.id))
      .toEqual(['wy-department-of-enterprise-technology-services', 'wy-state-of-wyoming', 'wy-state-of-wyoming-department-of-enterprise-technology-services', 'wy-wyoming-judicial-branch', 'wy-wyoming-legislative-service-office']);
  });

  it('follows the parent link, resolves short names and domains, and names both licences', async () => {
    const child = await srv.get('/apis/agencies/international-development-cooperation-agency');
    const parent = await srv.get(`/apis/agencies/${child.body.data.parent}`);
    expect(parent.body.data.short_name).toBe('USAID');
    expect((await srv.get('/apis/agencies/epa')).body.data.id).toBe('environmental-protection-agency');
    expect((await srv.get('/apis/agencies/wyo.gov')).body.data.id).toBe('wy-state-of-wyoming');
    expect(child.body.meta.sources.map((s: { licence: { spdx: string } }) => s.licence.spdx)).toEqual(['LicenseRef-US-Gov-PD', 'CC0-1.0']);
    expect((await srv.get('/apis/agencies/search?q=wyoming%20judicial')).body.data[0].id).toBe('wy-wyoming-judicial-branch');
  });

  it('404 for an unknown slug, 400 naming a bad level', async () => {
    expect(await srv.get('/apis/agencies/no-such-agency')).toMatchObject({ status: 404, body: { error: { code: 'record_not_found' } } });
    const bad = await srv.get('/apis/agencies?level=county');
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', details: { parameter: 'level' } } } });
  });

  it('says in the catalogue what the state level is', async () => {
    const entry = (await srv.get('/apis')).body.data.find((d: { dataset: string }) => d.dataset === 'agencies');
    expect(entry.coverage).toMatch(/not a complete directory/);
  });
});

describe('agencies from the mirrored files', () => {
  it.skipIf(!MIRROR_ROOT)(`builds 457 federal agencies and 745 state organisations; every parent link resolves ${NEEDS_MIRROR}`, async () => {
    for (const spec of Object.values(source.inputs)) {
      if (spec.kind !== 'url') continue;
      expect(createHash('sha256').update(fs.readFileSync(mirrorLocation(spec.url, MIRROR_ROOT!))).digest('hex')).toBe(spec.sha256);
    }
    const env = { ...process.env, ALMANAC_MIRROR: MIRROR_ROOT, ALMANAC_CACHE: tempDir(), ALMANAC_DIST: tempDir() };
    try {
      await fetchAll([source], env, quiet);
      const { reports } = await build({ env, sources: [source], log: quiet }); // checkLinks: parent and children
      expect(reports[0]).toMatchObject({ status: 'built', records: 1202 });
      const srv = await startServer(env.ALMANAC_DIST);
      try {
        const key = srv.key();
        const get = async (p: string) => (await fetch(srv.base + p, { headers: { 'x-service-key': key } })).json() as Promise<any>;
        expect((await get('/apis/agencies?level=federal')).meta.total).toBe(457);
        expect((await get('/apis/agencies?level=state')).meta.total).toBe(745);
        const fs = (await get('/apis/agencies/forest-service')).data;
        expect(fs.parent).toBe('agriculture-department');
        expect((await get(`/apis/agencies/${fs.parent}`)).data.children).toContain('forest-service');
        const body = JSON.stringify(await get('/apis/agencies?level=state&limit=100&offset=100'));
        expect(body).not.toMatch(/[a-z0-9._-]+@[a-z0-9-]+\.[a-z]/i);
      } finally {
        await srv.close();
        cleanup(srv.stateDir);
      }
    } finally {
      cleanup(env.ALMANAC_CACHE, env.ALMANAC_DIST);
    }
  }, 300_000);
});
