/**
 * One procurement record, whichever upstream form it came from (`form`): an award of the
 * live award search, an award summary row of USAspending's award table, or a contract
 * transaction of the legacy usaspending.gov download. The readers of the three forms
 * (award-search.ts, samples.ts) share the record and these checks.
 */
export const FORMS = ['award-search', 'award-summary', 'legacy-transaction'] as const;
export type Form = (typeof FORMS)[number];

export interface AwardRecord {
  id: string; form: Form; award_id: string; usaspending_award_id: string; modification: string | null;
  recipient: string | null; amount: number; action_date: string | null; start_date: string | null; end_date: string | null;
  agency: string | null; sub_agency: string | null; award_type: string | null;
  naics: string | null; naics_description: string | null; psc: string | null; psc_description: string | null;
  description: string | null; url: string;
}

export function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`procurement: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
export function str(where: string, field: string, v: unknown, pattern = /\S/): string {
  return typeof v === 'string' && pattern.test(v) ? v : fail(where, field, v);
}
/** Absent, null or "" is null; otherwise a string matching `pattern`. */
export function opt(where: string, field: string, v: unknown, pattern = /\S/): string | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
  return str(where, field, v, pattern);
}
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** USAspending's page of an award, by its generated award id (CONT_AWD_… or CONT_IDV_…). */
export const awardUrl = (generated: string) => `https://www.usaspending.gov/award/${encodeURIComponent(generated)}`;

/** USAspending's names of the contract award types A–D (the award search's "Contract Award Type"). */
export const CONTRACT_TYPES: Record<string, string> = { A: 'BPA CALL', B: 'PURCHASE ORDER', C: 'DELIVERY ORDER', D: 'DEFINITIVE CONTRACT' };
