/**
 * A record's weight in search: the one rule the index build, the server (through the
 * index) and the SQLite downloads share. Scores are multiplied by it (minisearch's
 * boostDocument), and a broad query ranked by match kind breaks its ties by it.
 *
 * - Prominence (issue 26, item 2): a dataset that ranks by a number it serves
 *   (SearchSpec.rank: population, popularity, prominence) weighs 1 + log10(1 + value), or
 *   1 + value on the linear scale.
 * - Breakdowns (issue 36, item 8): a record the data marks as a part of another record's
 *   total (SearchSpec.breakdown names the field holding that total's id: a WDI series by
 *   sex, SL.UEM.TOTL.MA.NE.ZS, of SL.UEM.TOTL.NE.ZS) weighs BREAKDOWN_WEIGHT as much, so a
 *   query by the indicator's plain name ("unemployment rate") finds the total first, while
 *   a query naming the part ("unemployment male") still finds the part: the total lacks
 *   the word.
 *
 * Since issue 36 the build stores the weight itself in the index (as `__rank`, the only
 * stored field the binary form has) and the manifest says so (`search_weights`); an index
 * of an older release stores the rank, which the server still weighs with rankWeight.
 */

/** How much less a breakdown of a total weighs than the total. */
export const BREAKDOWN_WEIGHT = 0.5;

/** A document's weight from its rank (SearchSpec.rank, rankScale). */
export const rankWeight = (rank: number, scale?: 'linear' | 'log') =>
  scale === 'linear' ? 1 + Math.max(0, rank) : 1 + Math.log10(1 + Math.max(0, rank));

export interface WeightSpec {
  rank?: string;
  rankScale?: 'linear' | 'log';
  breakdown?: string;
}

/** Whether a dataset's records have weights other than 1. */
export const weighted = (spec: WeightSpec) => !!(spec.rank || spec.breakdown);

/** The weight of `record` in search. */
export function searchWeight(spec: WeightSpec, record: Record<string, unknown>): number {
  const rank = spec.rank ? rankWeight(Number(record[spec.rank] ?? 0) || 0, spec.rankScale) : 1;
  const part = spec.breakdown && record[spec.breakdown] != null && record[spec.breakdown] !== '' ? BREAKDOWN_WEIGHT : 1;
  return rank * part;
}
