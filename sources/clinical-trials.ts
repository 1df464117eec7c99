/**
 * clinical-trials — registered clinical studies from ClinicalTrials.gov (U.S. National
 * Library of Medicine), through its data API v2.
 *
 * Upstream: GET https://clinicaltrials.gov/api/v2/studies (docs:
 * https://clinicaltrials.gov/data-api/api) answers `{"studies":[…],"nextPageToken":"…"}`;
 * the next page is asked for with `pageToken`, at most `pageSize=1000` studies a page.
 * Each study is `{protocolSection:{identificationModule, statusModule, …}, derivedSection,
 * hasResults, [resultsSection]}`. The whole registry is over 500,000 studies and several
 * GB, so the fetch asks for the most recently updated first (`sort=LastUpdatePostDate:desc`)
 * and stops after MAX_PAGES pages (50 × 1000 = the 50,000 most recently updated studies);
 * `fields` asks only for the pieces served here, which keeps a page to a few MB instead of
 * ~13 MB (results, outcomes and eligibility text are large and not served).
 * GET https://clinicaltrials.gov/api/v2/version (`{apiVersion, dataTimestamp}`, optional)
 * gives the data snapshot time, documented as UTC `yyyy-MM-dd'T'HH:mm:ss`: upstreamTime.
 *
 * Mirror variant: the mirror holds the website's "Download → JSON" export
 * (ctg-studies.json, under the variant URL below, which is not a real upstream address):
 * a bare JSON array of the same study objects, all pieces included. normalise accepts a
 * page that is either the API envelope or such a bare array.
 *
 * Decisions: dates are served as the upstream gives them (start and completion dates
 * may be YYYY-MM; posting dates are YYYY-MM-DD). brief_summary is the upstream text
 * (the API's default markup is markdown). countries are the locations' countries,
 * unique and sorted; interventions and collaborators are names only. If the registry
 * changes while paging, a study can appear on two pages: the copy with the newer
 * last_update_posted is kept (the first seen on a tie).
 */
import { dateBounds, defineSource, type PageGet } from './contract.ts';
import { COUNTRY_NAMES, COUNTRY_NAMES_PROVENANCE, countryNameFilter } from './vocabularies.ts';

export interface TrialRecord {
  id: string; title: string; official_title: string | null; status: string; phases: string[];
  study_type: string; conditions: string[]; keywords: string[]; interventions: string[];
  sponsor: string; sponsor_class: string | null; collaborators: string[];
  start_date: string | null; primary_completion_date: string | null; completion_date: string | null;
  first_posted: string; last_update_posted: string; enrollment: number | null; has_results: boolean;
  countries: string[]; brief_summary: string | null; url: string;
}

export const STUDIES_URL = 'https://clinicaltrials.gov/api/v2/studies';
export const VERSION_URL = 'https://clinicaltrials.gov/api/v2/version';
export const PAGE_SIZE = 1000;
/** 50 pages of 1000: the most recently updated tenth of the registry, a few hundred MB at most. */
export const MAX_PAGES = 50;
/** Piece names (https://clinicaltrials.gov/data-api/about-api/study-data-structure) of everything normalise reads. */
export const FIELDS = [
  'NCTId', 'BriefTitle', 'OfficialTitle', 'OverallStatus', 'Phase', 'StudyType', 'Condition', 'Keyword',
  'InterventionName', 'LeadSponsorName', 'LeadSponsorClass', 'CollaboratorName', 'StartDate',
  'PrimaryCompletionDate', 'CompletionDate', 'StudyFirstPostDate', 'LastUpdatePostDate', 'EnrollmentCount',
  'HasResults', 'LocationCountry', 'BriefSummary',
];

/** Follows nextPageToken until it is absent or MAX_PAGES pages have been read. */
export async function* studyPages(get: PageGet, maxPages = MAX_PAGES): AsyncGenerator<Buffer> {
  let token: string | undefined;
  for (let n = 0; n < maxPages; n++) {
    const q = new URLSearchParams({ format: 'json', pageSize: String(PAGE_SIZE), sort: 'LastUpdatePostDate:desc', fields: FIELDS.join(',') });
    if (token) q.set('pageToken', token);
    const body = await get(`${STUDIES_URL}?${q}`);
    yield body;
    const next = (JSON.parse(body.toString('utf8')) as { nextPageToken?: unknown }).nextPageToken;
    if (typeof next !== 'string' || next === '') return;
    token = next;
  }
}

function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`clinical-trials: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
function obj(where: string, field: string, v: unknown, optional = false): Record<string, unknown> {
  if (isObj(v)) return v;
  if (optional && v === undefined) return {};
  return fail(where, field, v);
}
function str(where: string, field: string, v: unknown, pattern = /\S/): string {
  return typeof v === 'string' && pattern.test(v) ? v : fail(where, field, v);
}
function optStr(where: string, field: string, v: unknown, pattern = /\S/): string | null {
  return v === undefined ? null : str(where, field, v, pattern);
}
function strings(where: string, field: string, v: unknown): string[] {
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  return fail(where, field, v);
}
/** `list[].name` as strings ([] when the list is absent). */
function names(where: string, field: string, v: unknown, key: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return fail(where, field, v);
  return v.map((e, i) => str(where, `${field}[${i}].${key}`, obj(where, `${field}[${i}]`, e)[key]));
}

const PARTIAL_DATE = /^\d{4}(-\d{2}){0,2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const dateOf = (where: string, field: string, struct: unknown, pattern: RegExp) =>
  struct === undefined ? null : str(where, `${field}.date`, obj(where, field, struct).date, pattern);

export function normaliseStudy(study: unknown, where: string): TrialRecord {
  const s = obj(where, '(study)', study);
  const p = obj(where, 'protocolSection', s.protocolSection);
  const idm = obj(where, 'identificationModule', p.identificationModule);
  const id = str(where, 'nctId', idm.nctId, /^NCT\d{8}$/);
  const at = `${where} (${id})`;
  const st = obj(at, 'statusModule', p.statusModule);
  const sp = obj(at, 'sponsorCollaboratorsModule', p.sponsorCollaboratorsModule);
  const lead = obj(at, 'leadSponsor', sp.leadSponsor);
  const design = obj(at, 'designModule', p.designModule, true);
  const cond = obj(at, 'conditionsModule', p.conditionsModule, true);
  const enrol = obj(at, 'enrollmentInfo', design.enrollmentInfo, true);
  if (enrol.count !== undefined && !(Number.isSafeInteger(enrol.count) && (enrol.count as number) >= 0)) fail(at, 'enrollmentInfo.count', enrol.count);
  if (typeof s.hasResults !== 'boolean') fail(at, 'hasResults', s.hasResults);
  const locations = obj(at, 'contactsLocationsModule', p.contactsLocationsModule, true).locations ?? [];
  if (!Array.isArray(locations)) fail(at, 'locations', locations);
  const countries = new Set<string>();
  locations.forEach((l, i) => {
    const c = obj(at, `locations[${i}]`, l).country;
    if (c !== undefined) countries.add(str(at, `locations[${i}].country`, c));
  });
  const first = dateOf(at, 'studyFirstPostDateStruct', st.studyFirstPostDateStruct, DATE);
  const last = dateOf(at, 'lastUpdatePostDateStruct', st.lastUpdatePostDateStruct, DATE);
  return {
    id,
    title: str(at, 'briefTitle', idm.briefTitle),
    official_title: optStr(at, 'officialTitle', idm.officialTitle),
    status: str(at, 'overallStatus', st.overallStatus, /^[A-Z_]+$/),
    phases: strings(at, 'phases', design.phases),
    study_type: str(at, 'studyType', design.studyType, /^[A-Z_]+$/),
    conditions: strings(at, 'conditions', cond.conditions),
    keywords: strings(at, 'keywords', cond.keywords),
    interventions: names(at, 'interventions', obj(at, 'armsInterventionsModule', p.armsInterventionsModule, true).interventions, 'name'),
    sponsor: str(at, 'leadSponsor.name', lead.name),
    sponsor_class: optStr(at, 'leadSponsor.class', lead.class, /^[A-Z_]+$/),
    collaborators: names(at, 'collaborators', sp.collaborators, 'name'),
    start_date: dateOf(at, 'startDateStruct', st.startDateStruct, PARTIAL_DATE),
    primary_completion_date: dateOf(at, 'primaryCompletionDateStruct', st.primaryCompletionDateStruct, PARTIAL_DATE),
    completion_date: dateOf(at, 'completionDateStruct', st.completionDateStruct, PARTIAL_DATE),
    first_posted: first ?? fail(at, 'studyFirstPostDateStruct', undefined),
    last_update_posted: last ?? fail(at, 'lastUpdatePostDateStruct', undefined),
    enrollment: (enrol.count as number | undefined) ?? null,
    has_results: s.hasResults as boolean,
    countries: [...countries].sort(),
    brief_summary: optStr(at, 'briefSummary', obj(at, 'descriptionModule', p.descriptionModule, true).briefSummary),
    url: `https://clinicaltrials.gov/study/${id}`,
  };
}

/** raw.studies: an array of page bodies, each the API envelope or (mirror) a bare array of studies. */
export function normaliseStudies(raw: Record<string, unknown>): TrialRecord[] {
  if (!Array.isArray(raw.studies)) fail('studies', '(pages)', raw.studies);
  const byId = new Map<string, TrialRecord>();
  raw.studies.forEach((page, p) => {
    const studies = Array.isArray(page) ? page : obj(`studies page ${p}`, '(page)', page).studies;
    if (!Array.isArray(studies)) fail(`studies page ${p}`, 'studies', studies);
    studies.forEach((study, i) => {
      const r = normaliseStudy(study, `studies page ${p} study ${i}`);
      const seen = byId.get(r.id);
      if (!seen || r.last_update_posted > seen.last_update_posted) byId.set(r.id, r);
    });
  });
  return [...byId.values()];
}

/** The version endpoint's dataTimestamp (UTC without a zone suffix) as ISO 8601 UTC, else null. */
export function versionTime(raw: Record<string, unknown>): string | null {
  if (raw.version === undefined) return null;
  const t = obj('version', '(body)', raw.version).dataTimestamp;
  const m = typeof t === 'string' ? /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z?$/.exec(t) : null;
  if (!m || Number.isNaN(Date.parse(`${m[1]}Z`))) return fail('version', 'dataTimestamp', t);
  return `${m[1]}Z`;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const strArray = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const PARTIAL = '^\\d{4}(-\\d{2}){0,2}$';
const DAY = '^\\d{4}-\\d{2}-\\d{2}$';

const properties = {
  id: { type: 'string', pattern: '^NCT\\d{8}$', description: 'NCT number' },
  title: { type: 'string', description: 'Brief title' },
  official_title: nullable('string'),
  status: { type: 'string', description: 'Overall recruitment status, e.g. RECRUITING, COMPLETED, TERMINATED' },
  phases: strArray('Phases, e.g. ["PHASE2","PHASE3"]; ["NA"] for device or behavioural studies; [] when not given (observational)'),
  study_type: { type: 'string', description: 'INTERVENTIONAL, OBSERVATIONAL or EXPANDED_ACCESS' },
  conditions: strArray('Conditions or diseases studied, as registered'),
  keywords: strArray('Keywords given by the sponsor'),
  interventions: strArray('Intervention names'),
  sponsor: { type: 'string', description: 'Lead sponsor name' },
  sponsor_class: nullable('string', { description: 'Lead sponsor class: INDUSTRY, NIH, FED, OTHER_GOV, INDIV, NETWORK, OTHER, UNKNOWN' }),
  collaborators: strArray('Collaborator names'),
  start_date: nullable('string', { pattern: PARTIAL, description: 'Study start (YYYY-MM or YYYY-MM-DD, as registered)' }),
  primary_completion_date: nullable('string', { pattern: PARTIAL }),
  completion_date: nullable('string', { pattern: PARTIAL }),
  first_posted: { type: 'string', pattern: DAY, description: 'Date first posted (YYYY-MM-DD)' },
  last_update_posted: { type: 'string', pattern: DAY, description: 'Date of the last posted update (YYYY-MM-DD)' },
  enrollment: nullable('integer', { minimum: 0, description: 'Enrollment (actual or estimated, as registered)' }),
  has_results: { type: 'boolean', description: 'Whether results are posted' },
  countries: strArray('Countries of the study locations, unique and sorted'),
  brief_summary: nullable('string'),
  url: { type: 'string', description: 'The study page on ClinicalTrials.gov' },
};

/**
 * The API writes enumerations in upper snake case (COMPLETED, NOT_YET_RECRUITING, PHASE3);
 * people write `completed`, `not yet recruiting`, `3`, `Phase III` (issue 13). Open sets
 * (the registry adds statuses), so these rewrite the spelling rather than close the set.
 */
const upperSnake = (v: string) => v.trim().toUpperCase().replace(/[\s-]+/g, '_');
const ROMAN: Record<string, string> = { I: '1', II: '2', III: '3', IV: '4' };
function phase(v: string): string {
  const s = upperSnake(v).replace(/^N_?\/?_?A$/, 'NA');
  const m = /^(EARLY_)?(?:PHASE_?)?(\d|I{1,3}|IV)$/.exec(s);
  return m ? `${m[1] ?? ''}PHASE${ROMAN[m[2]] ?? m[2]}` : s;
}

export default defineSource<TrialRecord>({
  id: 'clinical-trials',
  title: 'Clinical studies',
  description: 'Registered clinical studies from ClinicalTrials.gov (the most recently updated 50,000, newest update first): '
    + 'status, phases, conditions, interventions, sponsor, key dates, enrollment and countries.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'ClinicalTrials.gov data API v2 (U.S. National Library of Medicine)',
    url: 'https://clinicaltrials.gov/data-api/api',
    licence: {
      spdx: 'LicenseRef-ClinicalTrials-gov-Terms',
      name: 'ClinicalTrials.gov Terms and Conditions (NLM; study records are submitted by sponsors, who may hold rights in them)',
      url: 'https://clinicaltrials.gov/about-site/terms-conditions',
    },
    attribution: 'Data from ClinicalTrials.gov, a service of the U.S. National Library of Medicine; records are provided by '
      + 'study sponsors and investigators and may change daily. Check ClinicalTrials.gov for the current record.',
  }, COUNTRY_NAMES_PROVENANCE],
  inputs: {
    studies: { kind: 'live', url: STUDIES_URL, format: 'json', pages: (get) => studyPages(get),
      variants: ['https://clinicaltrials.gov/api/v2/studies/ctg-studies.json'] },
    version: { kind: 'live', url: VERSION_URL, format: 'json', optional: true },
    // The country filter's names and codes (issue 36, item 11: ?country=USA answered an empty list).
    ...COUNTRY_NAMES,
  },
  pathParamDescription: 'NCT number, e.g. NCT01339377.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: {
    fields: ['title', 'official_title', 'conditions', 'interventions', 'sponsor', 'keywords'],
    boost: { title: 3, conditions: 2, interventions: 2 },
  },
  filters: [
    { param: 'status', field: 'status', description: 'Overall status, e.g. RECRUITING or COMPLETED (any case; spaces or hyphens for underscores: not yet recruiting)', normalise: upperSnake },
    { param: 'phase', field: 'phases', description: 'Phase, e.g. PHASE3 (or NA, EARLY_PHASE1); also 3, phase 3, Phase III, early phase 1, N/A', normalise: phase },
    { param: 'condition', field: 'conditions', description: 'Condition exactly as registered, e.g. Breast Cancer', caseInsensitive: true },
    { param: 'sponsor', field: 'sponsor', description: 'Lead sponsor name', caseInsensitive: true },
    { param: 'study_type', field: 'study_type', description: 'INTERVENTIONAL, OBSERVATIONAL or EXPANDED_ACCESS (any case)', normalise: upperSnake },
    countryNameFilter('country', 'countries', 'Country of a study location as the registry names it, e.g. United States, in any case.'),
    ...dateBounds('last_update_posted', 'Date the last update was posted.'),
  ],
  order: (a, b) => (a.last_update_posted < b.last_update_posted ? 1 : a.last_update_posted > b.last_update_posted ? -1 : 0),
  // The version endpoint's dataTimestamp: when the registry snapshot the API serves was made.
  upstreamTime: versionTime,
  // ClinicalTrials.gov publishes a new data snapshot daily. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 259_200 },
  normalise: normaliseStudies,
});
