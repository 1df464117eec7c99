/**
 * The two procurement files USAspending publishes in its own repository
 * (fedspendingtransparency/usaspending-api, CC0), read as they are:
 *
 * - `2008_awards.csv`: 163 contract award summaries of FY2008 in USAspending's award table
 *   schema (award_id, generated_unique_award_id, piid, total_obligation, action_date,
 *   period_of_performance_*, awarding_*_agency_name, naics_code, product_or_service_code,
 *   …; 80 columns). One record each, `form: "award-summary"`, id = the generated award id.
 *   `amount` is total_obligation (all actions of the award). The file's type_description
 *   spells types two ways ("DO", "DELIVERY ORDER"): award_type is USAspending's name of the
 *   type code A–D instead (CONTRACT_TYPES).
 * - `usaspending_treasury_contracts.csv`: 126 Department of the Treasury contract
 *   transactions signed 2016-09-08..10, in the legacy usaspending.gov download format (225
 *   columns, "code: NAME" values, M/D/YYYY dates, CRLF). Transactions, not awards: one
 *   record each, `form: "legacy-transaction"`, id = its unique_transaction_id, `amount` =
 *   dollarsobligated (this action's obligation: a modification may be 0 or negative),
 *   `modification` = modnumber. Its award's USAspending id is made as USAspending makes
 *   it (data-act-broker: CONT_AWD_ + piid + agency id + parent award id + its agency, "-NONE-"
 *   for a missing part; the 2008 file's 163 ids follow the same rule), so every record links
 *   to its award's page. 10 rows are actions on indefinite-delivery vehicles themselves
 *   ("B: IDC", "E: BPA"): their award is CONT_IDV_ + piid + agency id, and their award_type
 *   is the vehicle's kind as the file names it (IDC, BPA).
 *
 * Both files are pinned by sha256; readCsv checks the columns read are there and every row
 * has the header's field count. Not served: recipient addresses, phone numbers, executives'
 * names and pay (personal data), and the business-type flags.
 */
import { readCsv, type CsvRow } from '../readers/csv.ts';
import { CONTRACT_TYPES, DATE, awardUrl, fail, type AwardRecord } from './record.ts';

const REPO = 'https://raw.githubusercontent.com/fedspendingtransparency/usaspending-api/';
export const AWARDS_2008_URL = `${REPO}cb6a6517905c433cd2c575b4c079f67c6f20b019/usaspending_api/etl/management/commands/2008_awards.csv`;
export const TREASURY_2016_URL = `${REPO}f1622c083171809846983fe7cc999e3a50b6002e/usaspending_api/data/usaspending_treasury_contracts.csv`;

const AWARD_COLUMNS = [
  'generated_unique_award_id', 'piid', 'type', 'total_obligation', 'description', 'recipient_name', 'action_date', 'update_date',
  'period_of_performance_start_date', 'period_of_performance_current_end_date', 'awarding_toptier_agency_name',
  'awarding_subtier_agency_name', 'naics_code', 'naics_description', 'product_or_service_code', 'product_or_service_description',
] as const;
const TRANSACTION_COLUMNS = [
  'unique_transaction_id', 'piid', 'modnumber', 'agencyid', 'idvpiid', 'idvagencyid', 'contractactiontype', 'dollarsobligated',
  'signeddate', 'effectivedate', 'currentcompletiondate', 'maj_agency_cat', 'contractingofficeagencyid', 'vendorname',
  'principalnaicscode', 'productorservicecode', 'descriptionofcontractrequirement', 'last_modified_date',
] as const;

const blank = (v: string) => (v.trim() === '' ? null : v);
function money(row: CsvRow, field: string): number {
  const v = row.values[field];
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : fail(row.where, field, v);
}
function isoDay(row: CsvRow, field: string, required = false): string | null {
  const v = row.values[field];
  if (v === '' && !required) return null;
  return DATE.test(v) && new Date(v).toISOString().slice(0, 10) === v ? v : fail(row.where, field, v);
}
/** The legacy download's M/D/YYYY as YYYY-MM-DD. */
function usDay(row: CsvRow, field: string, required = false): string | null {
  const v = row.values[field];
  if (v === '' && !required) return null;
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  const iso = m ? `${m[3]}-${m[1].padStart(2, '0')}-${m[2].padStart(2, '0')}` : '';
  const real = m !== null && !Number.isNaN(Date.parse(iso)) && new Date(iso).toISOString().slice(0, 10) === iso;
  return real ? iso : fail(row.where, field, v);
}
/** A legacy "code: NAME" value as [code, name] (name null when empty). */
function coded(row: CsvRow, field: string): [string, string | null] | null {
  const v = row.values[field];
  if (v.trim() === '') return null;
  const m = /^([^:]+): ?(.*)$/.exec(v);
  return m ? [m[1].trim(), blank(m[2].trim())] : fail(row.where, field, v);
}

/** 2008_awards.csv: one award summary per row. */
export function readAwardSummaries(text: unknown): AwardRecord[] {
  return readCsv(text, { file: '2008_awards.csv', header: { includes: AWARD_COLUMNS } }).map((row) => {
    const v = row.values;
    const id = v.generated_unique_award_id;
    if (!/^CONT_AWD_[^_]+_[^_]+_[^_]+_[^_]+$/.test(id)) fail(row.where, 'generated_unique_award_id', id);
    const type = CONTRACT_TYPES[v.type] ?? fail(row.where, 'type', v.type);
    if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/.test(v.update_date)) fail(row.where, 'update_date', v.update_date);
    if (v.naics_code !== '' && !/^\d{6}$/.test(v.naics_code)) fail(row.where, 'naics_code', v.naics_code);
    if (!/^[A-Z0-9]{4}$/.test(v.product_or_service_code)) fail(row.where, 'product_or_service_code', v.product_or_service_code);
    return {
      id, form: 'award-summary', award_id: v.piid, usaspending_award_id: id, modification: null,
      recipient: blank(v.recipient_name), amount: money(row, 'total_obligation'),
      action_date: isoDay(row, 'action_date', true), start_date: isoDay(row, 'period_of_performance_start_date'),
      end_date: isoDay(row, 'period_of_performance_current_end_date'),
      agency: blank(v.awarding_toptier_agency_name), sub_agency: blank(v.awarding_subtier_agency_name), award_type: type,
      naics: blank(v.naics_code), naics_description: blank(v.naics_description),
      psc: v.product_or_service_code, psc_description: blank(v.product_or_service_description),
      description: blank(v.description), url: awardUrl(id),
    };
  });
}

/** The legacy transaction's award, as USAspending keys it (see the top of this file). */
function awardOf(row: CsvRow, idv: boolean): string {
  const piid = row.values.piid.trim() || fail(row.where, 'piid', row.values.piid);
  // agencyid is "2050: INTERNAL REVENUE SERVICE"; idvagencyid a bare code ("4730").
  const agency = coded(row, 'agencyid')?.[0] ?? '';
  if (!/^\w{4}$/.test(agency)) fail(row.where, 'agencyid', row.values.agencyid);
  const idvAgency = row.values.idvagencyid.trim();
  if (idvAgency !== '' && !/^\w{4}$/.test(idvAgency)) fail(row.where, 'idvagencyid', row.values.idvagencyid);
  const parent = row.values.idvpiid.trim();
  if ((parent === '') !== (idvAgency === '')) fail(row.where, 'idvpiid', { idvpiid: parent, idvagencyid: idvAgency });
  const key = idv ? `CONT_IDV_${piid}_${agency}` : `CONT_AWD_${piid}_${agency}_${parent || '-NONE-'}_${idvAgency || '-NONE-'}`;
  return key.toUpperCase();
}

/** usaspending_treasury_contracts.csv: one contract transaction per row. */
export function readLegacyTransactions(text: unknown): AwardRecord[] {
  return readCsv(text, { file: 'usaspending_treasury_contracts.csv', header: { includes: TRANSACTION_COLUMNS } }).map((row) => {
    const v = row.values;
    const id = v.unique_transaction_id;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) fail(row.where, 'unique_transaction_id', id);
    const [typeCode, typeName] = coded(row, 'contractactiontype') ?? fail(row.where, 'contractactiontype', v.contractactiontype);
    // "B: PURCHASE ORDER" is an award, "B: IDC" a vehicle: the name tells them apart.
    const idv = typeName === 'IDC' || typeName === 'BPA';
    if (!idv && CONTRACT_TYPES[typeCode] !== typeName) fail(row.where, 'contractactiontype', v.contractactiontype);
    const award = awardOf(row, idv);
    const psc = coded(row, 'productorservicecode');
    if (v.principalnaicscode !== '' && !/^\d{6}$/.test(v.principalnaicscode)) fail(row.where, 'principalnaicscode', v.principalnaicscode);
    if (!usDay(row, 'last_modified_date', true)) fail(row.where, 'last_modified_date', v.last_modified_date);
    return {
      id, form: 'legacy-transaction', award_id: v.piid, usaspending_award_id: award, modification: blank(v.modnumber),
      recipient: blank(v.vendorname), amount: money(row, 'dollarsobligated'),
      action_date: usDay(row, 'signeddate', true), start_date: usDay(row, 'effectivedate'), end_date: usDay(row, 'currentcompletiondate'),
      agency: coded(row, 'maj_agency_cat')?.[1] ?? null, sub_agency: coded(row, 'contractingofficeagencyid')?.[1] ?? null,
      award_type: typeName, naics: blank(v.principalnaicscode), naics_description: null,
      psc: psc?.[0] ?? null, psc_description: psc?.[1] ?? null,
      description: blank(v.descriptionofcontractrequirement), url: awardUrl(award),
    };
  });
}

/** The newest date either file says its rows were last changed: 2008 update_date, legacy last_modified_date. */
export function samplesUpdated(awards: unknown, transactions: unknown): string | null {
  const times: string[] = [];
  if (awards !== undefined) {
    for (const row of readCsv(awards, { file: '2008_awards.csv', header: { includes: AWARD_COLUMNS } })) {
      times.push(new Date(row.values.update_date.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString());
    }
  }
  if (transactions !== undefined) {
    for (const row of readCsv(transactions, { file: 'usaspending_treasury_contracts.csv', header: { includes: TRANSACTION_COLUMNS } })) {
      times.push(`${usDay(row, 'last_modified_date', true)}T00:00:00.000Z`);
    }
  }
  return times.sort().pop() ?? null;
}
