/**
 * How study tokens are stored in the shards and which status each gets.
 *
 * A token is stored as a compact tuple (one JSON array, not an object with repeated
 * keys: the Hebrew and Greek layers alone hold ~580,000 tokens, and the shard size and
 * the server's memory follow the stored bytes). The server expands a tuple into the
 * documented token object, decoding the morphology code there (the decoders are pure
 * and their output is cached per code: 3,481 OSHB codes, 1,055 Robinson, 602 MorphGNT).
 *
 * Statuses (the spec's six; one-sentence definitions in the README):
 *   imported         copied from a published dataset, with no lexicon entry linked
 *   dataset-backed   copied from a published dataset that itself keys it to the lexicon
 *   lexicon-aligned  linked to a lexicon entry by a published key the dataset lacks (lemma spelling)
 *   rule-aligned     produced by this project's rules (generated, never high confidence)
 *   pending          no analysis yet (text only)
 *   review-needed    produced by this project's rules, but ambiguous
 */
export const STATUSES = ['imported', 'dataset-backed', 'lexicon-aligned', 'rule-aligned', 'pending', 'review-needed'] as const;
export type StudyStatus = (typeof STATUSES)[number];
export const CONFIDENCES = ['high', 'medium', 'low'] as const;
export type Confidence = (typeof CONFIDENCES)[number];
/** Statuses produced by this project's rules rather than copied: labelled generated. */
export const GENERATED: ReadonlySet<StudyStatus> = new Set(['rule-aligned', 'review-needed']);

/**
 * [position, surface, lemma, strong, morph code, status index, confidence index, extra?].
 * `position` is 1-based in the layer's verse; `surface` is null where the source has only
 * lemmas (the Septuagint: its inflected text is not freely licensed); `morph` is the source's own code
 * (MorphGNT: "<pos> <parse>"). The language is the layer's; the gloss sits once per
 * record in `glosses` (a verse's Hebrew word and its three English alignments share it).
 * `extra` (omitted when empty): OSHB qere, byztxt second numbers and alternative
 * parsings; for English words the linked source tokens, as indexes into the record's
 * Original Language tokens in panel order (expanded to token ids by the server).
 */
export type TokenTuple = [number, string | null, string | null, string | null, string | null, number, number, (Record<string, unknown> | number[])?];

export function tuple(
  position: number, text: string | null, lemma: string | null, strong: string | null, morph: string | null,
  status: StudyStatus, confidence: Confidence, extra?: Record<string, unknown> | number[] | null,
): TokenTuple {
  // One literal of the final length: pushing `extra` onto a 7-element array would grow its
  // store to 26 slots, ~150 bytes wasted on each of the ~2.5 million tuples that have one.
  const s = STATUSES.indexOf(status), c = CONFIDENCES.indexOf(confidence);
  return extra ? [position, text, lemma, strong, morph, s, c, extra] : [position, text, lemma, strong, morph, s, c];
}

/** One layer's share of a study record: the layer verses it draws on, and their tokens. */
export interface StoredPanel {
  layer: string;
  /** The layer's own references (e.g. WLC "mal.3.19") this KJV-numbered verse maps to. */
  refs: string[];
  /** The KJV study keys of a ref that sits under more than one (a verse the KJV splits), by ref. */
  shared?: Record<string, string[]>;
  /** Index into `refs` per token, parallel to `tokens` (most panels have one ref: omitted). */
  ref_of?: number[];
  /**
   * A bare string is a `pending` token with only its surface text (Vulgate, Peshitta:
   * 720,000 words that would otherwise repeat nine nulls each); its position is its
   * place among the tokens of the same ref.
   */
  tokens: (TokenTuple | string)[];
}

/** Stable id of a token: layer, the layer's own verse reference, position. */
export const tokenId = (layer: string, ref: string, position: number) => `${layer}:${ref}:${position}`;
