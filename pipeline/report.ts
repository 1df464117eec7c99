/**
 * The nightly's report (issue 29): what a new release changed against the one it replaced,
 * per dataset — records added, removed and changed (by id), its inputs and their
 * checksums, its freshness, the time its build took, and why it was held back, carried
 * forward or absent. Written as JSON and Markdown in dist/reports/ beside the releases
 * and summarised on stdout.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetReport } from './build.ts';
import { datasetChanged, staleAt, type GatedInfo } from './gate.ts';
import { isDatasetFile, MANIFEST, releaseDir, releasesDir, reportsDir } from './paths.ts';
import { records } from './release-records.ts';
import type { Manifest } from './writer.ts';

/** Ids listed per kind of change; the counts are always whole. */
const SAMPLE = 20;

export interface DatasetChange {
  id: string;
  status: DatasetReport['status'] | 'unchanged';
  records: number;
  previous_records: number | null;
  added: number;
  removed: number;
  changed: number;
  /** Up to SAMPLE ids of each kind, in list order. */
  ids: { added: string[]; removed: string[]; changed: string[] };
  inputs: { name: string; ref: string; sha256: string; changed: boolean }[];
  upstream_time: string | null;
  fetched_at: string | null;
  stale: boolean;
  seconds: number;
  reason: string | null;
  held_back: GatedInfo['held_back'] | null;
}

export interface NightlyReport {
  release: string;
  previous: string | null;
  /** false: the build gave the live release again, byte for byte. */
  new_release: boolean;
  started_at: string;
  seconds: number;
  fetch: { fetched: number; cached: number; failed: number; failures: { dataset: string; url: string; reason: string }[] };
  datasets: DatasetChange[];
  /** Files of no dataset (OpenAPI documents, licences, docs) added, removed or changed. */
  release_files: string[];
  held_back: string[];
  outcome: 'ok' | 'held-back' | 'failed';
}

export { reportsDir };

export function readManifest(dist: string, id: string | null): Manifest | null {
  if (!id) return null;
  try {
    return JSON.parse(readFileSync(path.join(releaseDir(dist, id), MANIFEST), 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

const lineHash = (line: string) => createHash('sha256').update(line).digest('base64').slice(0, 16);

/** Records added, removed and changed between two builds of a dataset, by id. */
function diff(dist: string, before: Manifest, after: Manifest, info: GatedInfo, old: GatedInfo) {
  const was = new Map<string, string>();
  for (const r of records(releaseDir(dist, before.release), old)) was.set(String(r.rec.id), lineHash(r.line));
  const out = { added: 0, removed: 0, changed: 0, ids: { added: [] as string[], removed: [] as string[], changed: [] as string[] } };
  const note = (kind: 'added' | 'removed' | 'changed', id: string) => {
    out[kind]++;
    if (out.ids[kind].length < SAMPLE) out.ids[kind].push(id);
  };
  for (const r of records(releaseDir(dist, after.release), info)) {
    const id = String(r.rec.id);
    const h = was.get(id);
    if (h === undefined) note('added', id);
    else if (h !== lineHash(r.line)) note('changed', id);
    was.delete(id);
  }
  for (const id of was.keys()) note('removed', id);
  return out;
}

/** Files that belong to no dataset and differ between the two releases: why a release with no dataset change is new. */
function releaseFiles(before: Manifest | null, after: Manifest, ids: string[]): string[] {
  const own = (p: string) => ids.some((id) => isDatasetFile(id, p));
  const was = before?.files ?? {};
  const out = Object.entries(after.files).filter(([p, e]) => !own(p) && was[p]?.sha256 !== e.sha256).map(([p]) => p);
  for (const p of Object.keys(was)) if (!own(p) && !(p in after.files)) out.push(p);
  return out.sort();
}

/** The report of a build that made (or kept) release `after` where `before` was live. */
export function nightlyReport(o: {
  dist: string; before: Manifest | null; after: Manifest; builds: DatasetReport[]; started: number; now?: number;
  fetch?: { status: string; dataset: string; url: string; reason?: string }[];
}): NightlyReport {
  const { dist, before, after } = o;
  const now = o.now ?? Date.now();
  const infos = after.datasets as Record<string, GatedInfo>;
  const olds = (before?.datasets ?? {}) as Record<string, GatedInfo>;
  const datasets: DatasetChange[] = o.builds.map((b) => {
    const info = infos[b.id];
    const old = olds[b.id];
    const changed = !!info && (!old || datasetChanged(b.id, Object.entries(after.files), before!.files));
    const d = info && old && changed && before ? diff(dist, before, after, info, old)
      : info && !old ? { added: info.records, removed: 0, changed: 0, ids: { added: [], removed: [], changed: [] } }
        : { added: 0, removed: 0, changed: 0, ids: { added: [], removed: [], changed: [] } };
    const oldInputs = new Map((old?.upstream ?? []).map((u) => [u.name, u.sha256]));
    return {
      id: b.id,
      status: b.status === 'built' && !changed ? 'unchanged' : b.status,
      records: info?.records ?? 0,
      previous_records: old?.records ?? null,
      ...d,
      inputs: (info?.upstream ?? []).map((u) => ({ name: u.name, ref: u.ref, sha256: u.sha256, changed: oldInputs.get(u.name) !== u.sha256 })),
      upstream_time: info?.upstream_time ?? null,
      fetched_at: info?.fetched_at ?? null,
      stale: !!info && (!!info.carried_forward_from || staleAt(info, now)),
      seconds: Number(b.seconds.toFixed(2)),
      reason: b.reason ?? null,
      held_back: info?.held_back ?? null,
    };
  });
  const fetch = o.fetch ?? [];
  const count = (s: string) => fetch.filter((f) => f.status === s).length;
  const held = datasets.filter((d) => d.status !== 'built' && d.status !== 'unchanged').map((d) => d.id);
  return {
    release: after.release,
    previous: before?.release ?? null,
    new_release: before?.release !== after.release,
    started_at: new Date(o.started).toISOString(),
    seconds: Number(((now - o.started) / 1000).toFixed(1)),
    fetch: { fetched: count('fetched'), cached: count('cached'), failed: count('failed'), failures: fetch.filter((f) => f.status === 'failed').map((f) => ({ dataset: f.dataset, url: f.url, reason: f.reason ?? '' })) },
    datasets,
    release_files: before ? releaseFiles(before, after, o.builds.map((b) => b.id)) : [],
    held_back: held,
    outcome: held.length ? 'held-back' : 'ok',
  };
}

/** The report as Markdown: a table of datasets, then the ids that changed and every reason. */
export function markdown(r: NightlyReport): string {
  const lines = [
    `# Nightly ${r.started_at}: release ${r.release}`, '',
    r.new_release ? `New release ${r.release} (was ${r.previous ?? 'none'}), ${r.seconds} s.` : `No change: release ${r.release} was already live (${r.seconds} s).`,
    `Outcome: **${r.outcome}**. Fetch: ${r.fetch.fetched} fetched, ${r.fetch.cached} unchanged, ${r.fetch.failed} failed.`, '',
    '| dataset | status | records | added | removed | changed | data time | stale | s |', '|---|---|---:|---:|---:|---:|---|---|---:|',
    ...r.datasets.map((d) => `| ${d.id} | ${d.status} | ${d.records}${d.previous_records !== null && d.previous_records !== d.records ? ` (was ${d.previous_records})` : ''} | ${d.added} | ${d.removed} | ${d.changed} | ${d.upstream_time ?? d.fetched_at ?? ''} | ${d.stale ? 'yes' : ''} | ${d.seconds} |`),
  ];
  const why = r.datasets.filter((d) => d.reason);
  if (why.length) lines.push('', '## Held back, carried forward, absent', '', ...why.map((d) => `- **${d.id}** (${d.status}${d.held_back ? `, since ${d.held_back.since}` : ''}): ${d.reason}`));
  const moved = r.datasets.filter((d) => d.ids.added.length + d.ids.removed.length + d.ids.changed.length);
  if (moved.length) {
    lines.push('', '## Changes by id', '');
    for (const d of moved) {
      for (const k of ['added', 'removed', 'changed'] as const) if (d.ids[k].length) lines.push(`- ${d.id} ${k} (${d[k]}): ${d.ids[k].join(', ')}${d[k] > d.ids[k].length ? ', …' : ''}`);
    }
  }
  if (r.release_files?.length) lines.push('', '## Release files that changed', '', ...r.release_files.map((f) => `- ${f}`));
  const inputs = r.datasets.flatMap((d) => d.inputs.filter((i) => i.changed).map((i) => `- ${d.id}: ${i.name} ${i.ref} sha256 ${i.sha256}`));
  if (inputs.length) lines.push('', '## Inputs that changed', '', ...inputs);
  if (r.fetch.failures.length) lines.push('', '## Fetch failures', '', ...r.fetch.failures.map((f) => `- ${f.dataset}: ${f.url}: ${f.reason}`));
  return lines.join('\n') + '\n';
}

/** Writes reports/<release>.json and .md; removes the reports of releases pruned away. */
export function writeReport(dist: string, r: NightlyReport) {
  const dir = reportsDir(dist);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${r.release}.json`), JSON.stringify(r, null, 1) + '\n');
  writeFileSync(path.join(dir, `${r.release}.md`), markdown(r));
  for (const f of readdirSync(dir)) {
    const id = f.replace(/\.(json|md)$/, '');
    if (!existsSync(path.join(releasesDir(dist), id))) rmSync(path.join(dir, f), { force: true });
  }
}
