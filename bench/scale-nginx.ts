/**
 * nginx as a target of bench/scale.ts: almanac's saved responses served as files by Debian's
 * nginx, with its own config in the bench's temp folder, one worker (as node's one process:
 * a per-core comparison), pinned to the servers' core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { pinned } from './scale-load.ts';

/** A port nothing listens on now (nginx needs one in its config). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts nginx serving `files` (r0.json …) and waits until it answers; `children` gets the process. */
export async function startNginx(work: string, files: string, children: ChildProcess[]): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const conf = path.join(work, 'nginx.conf');
  mkdirSync(path.join(work, 'nginx'), { recursive: true });
  writeFileSync(conf, `daemon off; worker_processes 1; pid ${work}/nginx/pid; error_log stderr error;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000; default_type application/json;
  client_body_temp_path ${work}/nginx; proxy_temp_path ${work}/nginx; fastcgi_temp_path ${work}/nginx; uwsgi_temp_path ${work}/nginx; scgi_temp_path ${work}/nginx;
  server { listen 127.0.0.1:${port}; root ${files}; } }
`);
  const [cmd, a] = pinned('0', 'nginx', ['-c', conf, '-p', work]);
  const child = spawn(cmd, a, { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(child);
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/r0.json`);
      if (r.status !== 200) throw new Error(`nginx answered ${r.status}`);
      break;
    } catch (err) {
      if (i > 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { child, base: `http://127.0.0.1:${port}` };
}
