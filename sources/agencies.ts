/**
 * agencies: federal agencies from the Federal Register's agency list, and (level
 * "state") state and territory organisations from the CISA .gov domain registry.
 *
 * - Federal Register `/api/v1/agencies` (mirrored copy re-serialized with indent, same
 *   keys and values; retrieved by 2022-09-28): a bare array of 457 agencies with 13
 *   keys each. Served: slug (the id), FR id, name, short name, description, parent and
 *   children (as slugs, linked within this dataset), the FR agency page, the agency's
 *   own website and the FR documents query. Not served: logo images, json_url.
 * - CISA `cisagov/dotgov-data` `current-full.csv` (export of 2026-08-22, CC0): one row
 *   per .gov domain. Rows of domain type "State or territory" (and "… - Election") are
 *   grouped into one record per organisation and state: the organisation name compared
 *   case- and punctuation-insensitively (the registry spells "State of Wyoming" five
 *   ways), the most frequent spelling kept as the name, with
 *   its domains, suborganisations and cities. The "Security contact email" column holds
 *   personal addresses: it is checked in the header and never read into a record.
 *
 * Ids: a federal agency's FR slug (environmental-protection-agency); a state record's
 * "<state>-<organisation slug>" in lower case (wi-wisconsin-department-of-transportation).
 */
import { defineSource } from './contract.ts';
import { fail, readCsv } from './readers/csv.ts';

export interface AgencyRecord {
  id: string; level: 'federal' | 'state'; name: string; short_name: string | null; state: string | null;
  parent: string | null; children: string[]; description: string | null; url: string | null; website: string | null;
  documents_url: string | null; federal_register_id: number | null; domains: string[]; suborganizations: string[];
  cities: string[]; election_domains: string[];
}

const FR_FILE = 'Federal Register agencies.json';
const FR_KEYS = ['agency_url', 'child_ids', 'child_slugs', 'description', 'id', 'logo', 'name', 'parent_id', 'recent_articles_url',
  'short_name', 'slug', 'url', 'json_url'];
export const DOTGOV_FILE = 'current-full.csv';
export const DOTGOV_HEADER = ['Domain name', 'Domain type', 'Organization name', 'Suborganization name', 'City', 'State', 'Security contact email'];
const STATE_TYPES = new Set(['State or territory', 'State or territory - Election']);
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const str = (where: string, field: string, v: unknown, pattern?: RegExp): string =>
  (typeof v === 'string' && v.trim() !== '' && (!pattern || pattern.test(v)) ? v : fail(where, field, v));
const optStr = (where: string, field: string, v: unknown, pattern?: RegExp) => (v === null || v === '' ? null : str(where, field, v, pattern));
export const slugify = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export function federalAgencies(raw: unknown): AgencyRecord[] {
  if (!Array.isArray(raw)) return fail(FR_FILE, '(document)', typeof raw);
  const rows = raw.map((a, i) => {
    const where = `${FR_FILE} [${i}]`;
    if (!a || typeof a !== 'object' || Array.isArray(a)) fail(where, '(agency)', a);
    const o = a as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length !== FR_KEYS.length || keys.some((k) => !FR_KEYS.includes(k))) fail(where, '(keys)', keys);
    if (!Number.isSafeInteger(o.id)) fail(where, 'id', o.id);
    if (o.parent_id !== null && !Number.isSafeInteger(o.parent_id)) fail(where, 'parent_id', o.parent_id);
    const childSlugs = Array.isArray(o.child_slugs) ? o.child_slugs.map((c) => str(where, 'child_slugs', c, SLUG)) : fail(where, 'child_slugs', o.child_slugs);
    return { where, o, id: o.id as number, slug: str(where, 'slug', o.slug, SLUG), parentId: o.parent_id as number | null, childSlugs };
  });
  const slugById = new Map(rows.map((r) => [r.id, r.slug]));
  return rows.map(({ where, o, slug, parentId, childSlugs }): AgencyRecord => ({
    id: slug, level: 'federal', name: str(where, 'name', o.name).trim(), short_name: optStr(where, 'short_name', o.short_name)?.trim() ?? null,
    state: null,
    parent: parentId === null ? null : slugById.get(parentId) ?? fail(where, 'parent_id (no such agency)', parentId),
    children: childSlugs,
    description: optStr(where, 'description', o.description)?.trim() ?? null,
    url: str(where, 'url', o.url, /^https:\/\/www\.federalregister\.gov\/agencies\//),
    website: optStr(where, 'agency_url', o.agency_url, /^https?:\/\//),
    documents_url: str(where, 'recent_articles_url', o.recent_articles_url, /^https:\/\/www\.federalregister\.gov\/api\/v1\/documents/),
    federal_register_id: o.id as number, domains: [], suborganizations: [], cities: [], election_domains: [],
  }));
}

/** Distinct values, compared case-insensitively, first spelling kept, sorted. */
function distinct(values: string[]): string[] {
  const m = new Map<string, string>();
  for (const v of values) if (v && !m.has(v.toLowerCase())) m.set(v.toLowerCase(), v);
  return [...m.values()].sort();
}

export function stateOrganisations(text: unknown): AgencyRecord[] {
  const groups = new Map<string, { state: string; names: string[]; domains: string[]; election: string[]; subs: string[]; cities: string[] }>();
  for (const { values: v, where } of readCsv(text, { file: DOTGOV_FILE, header: DOTGOV_HEADER })) {
    if (!STATE_TYPES.has(v['Domain type'])) continue;
    const domain = str(where, 'Domain name', v['Domain name'], /^[a-z0-9-]+(\.[a-z0-9-]+)*\.gov$/);
    const state = str(where, 'State', v.State, /^[A-Z]{2}$/);
    const name = str(where, 'Organization name', v['Organization name']).trim().replace(/\s+/g, ' ');
    const slug = slugify(name) || fail(where, 'Organization name', name);
    const id = `${state.toLowerCase()}-${slug}`;
    const g = groups.get(id) ?? groups.set(id, { state, names: [], domains: [], election: [], subs: [], cities: [] }).get(id)!;
    g.names.push(name);
    g.domains.push(domain);
    if (v['Domain type'].endsWith('Election')) g.election.push(domain);
    g.subs.push(v['Suborganization name'].trim());
    g.cities.push(v.City.trim());
  }
  return [...groups].map(([id, g]): AgencyRecord => {
    // The most frequent spelling names the record; ties go to the first in code-unit order.
    const counts = new Map<string, number>();
    for (const n of g.names) counts.set(n, (counts.get(n) ?? 0) + 1);
    const ranked = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).map(([n]) => n);
    return {
      id, level: 'state', name: ranked[0], short_name: null, state: g.state, parent: null, children: [], description: null,
      url: null, website: null, documents_url: null, federal_register_id: null,
      domains: [...new Set(g.domains)].sort(), suborganizations: distinct(g.subs), cities: distinct(g.cities),
      election_domains: [...new Set(g.election)].sort(),
    };
  });
}

const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...extra });
const properties = {
  id: { type: 'string', pattern: SLUG.source, description: 'Slug: the Federal Register slug, or <state>-<organisation> for state records' },
  level: { type: 'string', enum: ['federal', 'state'] },
  name: { type: 'string' },
  short_name: text('Federal: abbreviation, e.g. EPA'),
  state: text('State level: USPS state or territory code', { pattern: '^[A-Z]{2}$' }),
  parent: text('Federal: slug of the parent agency (a record of this dataset)'),
  children: strings('Federal: slugs of sub-agencies (records of this dataset)'),
  description: text('Federal: the Federal Register\'s description'),
  url: text('Federal: the agency\'s page on FederalRegister.gov'),
  website: text('Federal: the agency\'s own website, as the Federal Register gives it'),
  documents_url: text('Federal: Federal Register API query for the agency\'s newest documents'),
  federal_register_id: { type: ['integer', 'null'], description: 'Federal: the Federal Register agency id' },
  domains: strings('State: the organisation\'s .gov domains in the CISA registry'),
  suborganizations: strings('State: suborganisation names on those domains'),
  cities: strings('State: cities the registry gives for those domains'),
  election_domains: strings('State: domains registered as election domains'),
};

export default defineSource<AgencyRecord>({
  id: 'agencies',
  title: 'Agencies',
  description: 'US federal agencies (Federal Register) with parent and child agencies; with level=state, state and territory '
    + 'government organisations that hold .gov domains (CISA .gov registry).',
  coverage: 'Federal: the 457 agencies of the Federal Register agency list as retrieved by 2022-09-28 (agencies created since are '
    + 'missing). State level: the 745 organisations the CISA .gov registry (export of 2026-08-22) lists as "State or territory" '
    + 'domain holders, grouped from their 1,445 domains. This is organisations that registered a .gov domain, not a complete '
    + 'directory of state agencies: an agency without a .gov domain of its own (one served under a state portal\'s domain, or '
    + 'on .us, .org or .com) is absent. The registry\'s security contact e-mail is never served.',
  contractVersion: '0.1.0',
  provenance: [
    {
      name: 'FederalRegister.gov API v1 agencies (retrieved by 2022-09-28)',
      url: 'https://www.federalregister.gov/developers/documentation/api/v1',
      licence: { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.usa.gov/government-copyright' },
      attribution: 'FederalRegister.gov, Office of the Federal Register (NARA) and Government Publishing Office',
    },
    {
      name: 'CISA .gov registry, cisagov/dotgov-data current-full.csv (2026-08-22)',
      url: 'https://github.com/cisagov/dotgov-data',
      licence: { spdx: 'CC0-1.0', name: 'CC0 1.0 Universal', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
      attribution: 'Cybersecurity and Infrastructure Security Agency (CISA), .gov registry data',
    },
  ],
  inputs: {
    federal: {
      kind: 'url', url: 'https://www.federalregister.gov/api/v1/agencies.json',
      sha256: 'beef01ae35363a51bf5f0f4c8b40dac42b6af0f51a7fd2f18524f7aa82528e6d', format: 'json',
    },
    dotgov: {
      kind: 'url', url: 'https://raw.githubusercontent.com/cisagov/dotgov-data/main/current-full.csv',
      sha256: '2cf70e99bc8155438099a8d9258a2c1d5eb2e544c1241b9e932d5bbd4005cb0e', format: 'text',
    },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['name', 'short_name', 'suborganizations', 'domains', 'cities'], boost: { name: 3, short_name: 3 }, names: [{ field: 'short_name' }] },
  filters: [
    { param: 'level', field: 'level', description: 'federal (Federal Register agencies) or state (state and territory organisations with .gov domains)', caseInsensitive: true },
    { param: 'state', field: 'state', description: 'State level: USPS code, e.g. WI', caseInsensitive: true },
    { param: 'parent', field: 'parent', description: 'Federal: slug of the parent agency, e.g. agriculture-department' },
  ],
  links: [{ field: 'parent', dataset: 'agencies' }, { field: 'children', dataset: 'agencies' }],
  aliases: (r) => [...(r.short_name ? [r.short_name] : []), ...(r.federal_register_id !== null ? [String(r.federal_register_id)] : []), ...r.domains],
  pathParam: 'slug',
  pathParamDescription: 'Federal Register slug (environmental-protection-agency), a state record\'s slug (wi-wisconsin-department-of-transportation), '
    + 'a federal short name (EPA) or Federal Register id, or one of a state organisation\'s .gov domains; case-insensitive.',
  // Federal agencies first (the spec's list), then state records by state and slug.
  order: (a, b) => (a.level !== b.level ? (a.level === 'federal' ? -1 : 1) : 0),
  normalise(raw) {
    const federal = federalAgencies(raw.federal);
    return [...federal, ...stateOrganisations(raw.dotgov)];
  },
});
