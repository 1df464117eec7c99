/**
 * The schedules that ship with the nightly job (issue 29): the GitHub workflow is valid
 * against the workflow schema (@action-validator/core, the SchemaStore schema compiled to
 * WASM) and runs `npm run nightly`; the systemd timer starts the service, which runs it
 * and counts exit 3 (held back) as success; the command's usage errors exit 2.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';

const read = (p: string) => readFileSync(path.join(PROJECT_ROOT, p), 'utf8');

/** `[Section]` → key → values of a systemd unit file. */
function unit(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const s = /^\[(\w+)\]$/.exec(line);
    if (s) {
      section = s[1];
      out[section] ??= {};
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    expect(kv, `a key=value line in [${section}]: ${line}`).not.toBeNull();
    (out[section][kv![1]] ??= []).push(kv![2]);
  }
  return out;
}

describe('the nightly schedules', () => {
  it('the GitHub workflow passes the workflow schema and runs npm run nightly on a schedule', () => {
    const text = read('.github/workflows/nightly.yml');
    expect(validateWorkflow(text).errors).toEqual([]);
    expect(text).toMatch(/cron: '\d+ \d+ \* \* \*'/);
    expect(text).toMatch(/npm run nightly -- --report/);
    // The linter does catch a broken file.
    expect(validateWorkflow(text.replace('runs-on:', 'runs_on:')).errors.length).toBeGreaterThan(0);
  });

  // Issue 40, item 3: 7 kept releases (~1.5 GB each) outgrew the 10 GB of a repository's
  // caches, Latin stayed pending without WORDS, and a cancelled run's dist was saved.
  it('the GitHub workflow installs whitakers-words, keeps only the live release, saves no cancelled run, and keeps one cache entry', () => {
    const text = read('.github/workflows/nightly.yml');
    const step = (name: string) => text.split(/\n      - /).find((s) => s.includes(name)) ?? '';
    expect(text).toMatch(/run: sudo apt-get update -q && sudo apt-get install -y -q --no-install-recommends whitakers-words\n/);
    expect(text.indexOf('whitakers-words\n')).toBeLessThan(text.indexOf('npm run nightly -- --report'));
    expect(step('name: npm run nightly')).toMatch(/ALMANAC_NIGHTLY_KEEP: '1'/);
    const save = step('uses: actions/cache/save@v4');
    expect(save).toMatch(/if: \$\{\{ !cancelled\(\) \}\}/);
    expect(save).not.toMatch(/always\(\)/);
    for (const p of ['dist', '.cache/upstream', '.cache/whitakers-words']) expect(save).toContain(`            ${p}\n`);
    expect(step('gh cache delete')).toMatch(/steps\.save\.outcome == 'success'/);
  });

  it('the systemd install steps give the project folder to the almanac user and install whitakers-words', () => {
    const doc = read('docs/nightly.md');
    const steps = doc.slice(doc.indexOf('## Scheduling with systemd'), doc.indexOf('## Scheduling on GitHub Actions'));
    const block = /```sh\n([\s\S]*?)```/.exec(steps)![1];
    const at = (s: string) => block.indexOf(s);
    expect(at('sudo chown -R almanac:almanac /srv/almanac')).toBeGreaterThan(at('sudo useradd'));
    expect(at('sudo -u almanac npm ci')).toBeGreaterThan(at('sudo chown -R almanac:almanac /srv/almanac'));
    expect(at('apt-get install -y whitakers-words')).toBeGreaterThan(-1);
    expect(at('sudo systemctl enable --now almanac-nightly.timer')).toBeGreaterThan(at('sudo -u almanac npm ci'));
    const service = unit(read('ops/systemd/almanac-nightly.service'));
    expect(service.Service).toMatchObject({ User: ['almanac'], WorkingDirectory: ['/srv/almanac'] });
  });

  it('the systemd timer starts the service, which runs the job and treats exit 3 as done', () => {
    const service = unit(read('ops/systemd/almanac-nightly.service'));
    const timer = unit(read('ops/systemd/almanac-nightly.timer'));
    expect(service.Service).toMatchObject({ Type: ['oneshot'], ExecStart: ['/usr/bin/npm run nightly'], SuccessExitStatus: ['3'] });
    expect(timer.Timer).toMatchObject({ Unit: ['almanac-nightly.service'], Persistent: ['true'], OnCalendar: [expect.stringMatching(/^\*-\*-\* \d\d:\d\d:\d\d$/)] });
    expect(timer.Install).toEqual({ WantedBy: ['timers.target'] });
  });

  it('npm run nightly refuses bad arguments with exit 2 and explains itself with --help', () => {
    const tsx = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
    const bad = spawnSync(tsx, ['ops/nightly.ts', '--keep', '0'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    // The error names the option; the usage follows on stderr (a usage error is not output).
    expect(bad.stderr).toMatch(/^nightly: --keep must be a whole number of at least 1\nusage: npm run nightly/);
    const help = spawnSync(tsx, ['ops/nightly.ts', '--help'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/exit: 0 all moved on, 3 some held back/);
  });
});
