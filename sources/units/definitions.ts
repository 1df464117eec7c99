/**
 * Current definitions that win over an upstream's table. Both upstreams carry some
 * values that were measurements or roundings when written and are exact definitions
 * now (the 2019 SI fixed e, h and k; the IAU fixed the au in 2012), or that round a
 * conventional definition (UCUM's 133.322 kPa per metre of mercury, CLDR's eV to 7
 * digits). The rule (README "units"): a unit's factor comes from its upstream unless a
 * current, citable definition below says otherwise; `exact` is true only where that
 * definition is exact; a measured constant takes its CODATA 2018 value, flagged inexact.
 * Every record whose factor depends on one of these names it in `defined_by`.
 *
 * Values are typed from the cited documents (the SI Brochure, 9th edition 2019, v2.01
 * of 2022, Tables 1 and 8; CODATA 2018; NIST SP 811, 2008 edition, appendix B.8), not
 * from either upstream.
 */
import * as R from './rational.ts';
import { q, type Q } from './quantity.ts';

export interface Definition { value: Q; cite: string }

const dec = (s: string) => R.parseDecimal(s)!;
const SI_TABLE1 = 'SI Brochure, 9th ed. (BIPM 2019), Table 1: defining constant, exact';
const SI_TABLE8 = 'SI Brochure, 9th ed. (BIPM 2019), Table 8';
const CODATA_U = 'CODATA 2018 (Tiesinga et al., Rev. Mod. Phys. 93, 025010, 2021): m_u = 1.660 539 066 60(50) × 10⁻²⁷ kg, measured';
const ENERGY = { kg: 1, m: 2, s: -2 };
const PRESSURE = { kg: 1, m: -1, s: -2 };

/**
 * UCUM codes, evaluated in place of the table's row; units defined from them follow
 * (eV = [e].V, [in_i'Hg] = m[Hg].[in_i]/m, mm[Hg] = m·m[Hg]).
 */
export const UCUM_DEFINITIONS: Record<string, Definition> = {
  '[e]': { value: q(dec('1.602176634e-19'), { A: 1, s: 1 }), cite: `${SI_TABLE1} (e = 1.602 176 634 × 10⁻¹⁹ C)` },
  '[h]': { value: q(dec('6.62607015e-34'), { ...ENERGY, s: -1 }), cite: `${SI_TABLE1} (h = 6.626 070 15 × 10⁻³⁴ J s)` },
  '[k]': { value: q(dec('1.380649e-23'), { ...ENERGY, K: -1 }), cite: `${SI_TABLE1} (k = 1.380 649 × 10⁻²³ J/K)` },
  u: { value: q(dec('1.66053906660e-27'), { kg: 1 }, 0, true), cite: CODATA_U },
  AU: { value: q(dec('149597870700'), { m: 1 }), cite: `${SI_TABLE8}: au = 149 597 870 700 m exactly (IAU 2012 Resolution B2)` },
  Torr: {
    value: q(R.div(dec('101325'), dec('760')), PRESSURE),
    cite: 'NIST SP 811 (2008) B.8 and ISO 80000-4: 1 Torr = 1/760 standard atmosphere = 101 325/760 Pa exactly',
  },
  // conventional mercury column: density 13 595.1 kg/m³ under standard gravity 9.806 65 m/s² (the definition CLDR's `ofhg` uses)
  'm[Hg]': {
    value: q(R.mul(dec('13595.1'), dec('9.80665')), PRESSURE),
    cite: 'NIST SP 811 (2008) B.8, conventional millimetre of mercury: ρ = 13 595.1 kg/m³, g_n = 9.806 65 m/s²; 1 mmHg = 133.322 387 415 Pa exactly',
  },
};

/** CLDR constants (unitConstants) and unit factors (convertUnits `_factor`), replaced by value in the base unit. */
export const CLDR_CONSTANTS: Record<string, Definition> = {
  AMU: { value: q(dec('1.66053906660e-27'), {}, 0, true), cite: CODATA_U },
};
export const CLDR_FACTORS: Record<string, Definition> = {
  electronvolt: { value: q(dec('1.602176634e-19')), cite: `${SI_TABLE8}: 1 eV = 1.602 176 634 × 10⁻¹⁹ J exactly` },
};
