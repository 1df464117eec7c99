/**
 * Known errors of Pantheon 1.0 that the other sources cannot fix on their own (issue 36,
 * item 9), each corrected field with the value it replaces and the evidence. A record
 * carries its corrections (`corrections`) and names "correction" as the source of each
 * corrected field, so nothing here passes for Pantheon's data. A correction whose row
 * no longer holds the value it replaces fails the build: the upstream changed and the
 * correction must be looked at again, not applied blindly.
 *
 * Only errors shown by evidence beyond Pantheon belong here; a birth country that differs
 * from a person's nationality (Chopin, born in Poland) is not one.
 */

export interface Correction {
  field: 'country' | 'latitude' | 'longitude';
  /** What Pantheon says (the build checks it still does). */
  pantheon: string | number | null;
  value: string | number | null;
  reason: string;
}

const ARRHENIUS = 'Pantheon placed the birthplace "Vik" at Vik in Norway (61.06 N, 6.58 E); Svante Arrhenius was born at Vik (Wik) '
  + 'near Uppsala, Sweden (English Wikipedia, page 36586; WordNet 3.1: "Swedish chemist and physicist"). The Swedish Vik has '
  + 'no coordinates in the sources, so none are served.';

/** By Pantheon's en_curid. */
export const PANTHEON_CORRECTIONS: Readonly<Record<number, Correction[]>> = {
  36586: [
    { field: 'country', pantheon: 'NO', value: 'SE', reason: ARRHENIUS },
    { field: 'latitude', pantheon: 61.056944, value: null, reason: ARRHENIUS },
    { field: 'longitude', pantheon: 6.578056, value: null, reason: ARRHENIUS },
  ],
};

export const CORRECTION_SCHEMA = {
  type: 'array',
  description: 'Fields this project corrected where Pantheon is shown wrong by other evidence: the field, Pantheon\'s value, the served value and why ([] for almost every record)',
  items: {
    type: 'object', additionalProperties: false, required: ['field', 'pantheon', 'value', 'reason'],
    properties: {
      field: { type: 'string' }, pantheon: { type: ['string', 'number', 'null'] }, value: { type: ['string', 'number', 'null'] }, reason: { type: 'string' },
    },
  },
};
