/**
 * The translation slugs of the scripture spec, in the order /api/v1/translations lists
 * them. A slug is served when its dataset is in the live release; otherwise it is
 * listed as unavailable with the reason below (or the build's reason for skipping it).
 */
export const TRANSLATION_SLUGS = [
  'kjv', 'web-catholic', 'web', 'asv', 'webster', 'ylt', 'darby', 'rv', 'douay-rheims', 'geneva', 'oeb', 'brenton',
] as const;

/**
 * Slugs with no reachable public-domain source at all (not a fetch failure). None since the
 * Revised Version was found (issue 37): a slug here is listed as unavailable with its reason.
 */
export const UNAVAILABLE: Record<string, { name: string; reason: string }> = {};
