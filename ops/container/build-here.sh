#!/usr/bin/env bash
# Builds the almanac image where no base image can be pulled and no container can be
# started, and runs what it holds (issue 38, item 8). Not part of npm test: it takes minutes.
#
#   1. a Debian base from Debian's own packages: debootstrap (minbase) of SUITE (trixie:
#      its nodejs is 20.19, as package.json's engines need), from the mirror apt uses here;
#   2. podman import of that root as localhost/almanac-base:SUITE;
#   3. podman build --isolation=chroot of the Dockerfile on it (localhost/almanac:dev; in
#      the docker format, as the OCI format has no HEALTHCHECK);
#   4. the image's entry point run with chroot into `podman image mount`: a Redis on
#      loopback, a key made with the image's keys CLI, two servers on that one Redis, a keyed
#      request to each (the second sees the first's count), /readyz and the HEALTHCHECK's
#      command, then SIGTERM (each drains and exits 0).
#
# Needs root, debootstrap, podman, redis-server and curl. ALMANAC_DIST: the release the two
# servers serve (default dist/; bound read-only). DEBIAN_MIRROR overrides the mirror,
# SUITE the suite; KEEP_ROOTFS=1 reuses the debootstrapped root of an earlier run.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=${SUITE:-trixie}
DIST=$(realpath "${ALMANAC_DIST:-$here/dist}")
work=${WORK:-$here/.cache/container}
rootfs=$work/rootfs-$SUITE
base=localhost/almanac-base:$SUITE
image=localhost/almanac:dev
say() { printf '\n== %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { echo "build-here.sh: run as root (debootstrap, chroot and mounts need it)" >&2; exit 2; }
for tool in debootstrap podman redis-server curl; do command -v "$tool" >/dev/null || { echo "build-here.sh: $tool is not installed" >&2; exit 2; }; done
[ -e "$DIST/current" ] || { echo "build-here.sh: no release at $DIST (set ALMANAC_DIST to a dist folder with a current release)" >&2; exit 2; }
mirror=${DEBIAN_MIRROR:-$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$work"

t0=$(date +%s)
if [ "${KEEP_ROOTFS:-0}" = 1 ] && [ -x "$rootfs/usr/bin/node" ]; then
  say "debootstrap: reusing $rootfs"
else
  say "debootstrap $SUITE (minbase + nodejs) from $mirror"
  rm -rf "$rootfs"
  debootstrap --variant=minbase --include=nodejs,ca-certificates "$SUITE" "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log"; exit 1; }
  # The image's apt reads the same mirror; no package lists or caches in the base.
  echo "deb $mirror $SUITE main" > "$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
fi
echo "node in the base: $(chroot "$rootfs" node --version) ($(du -sh "$rootfs" | cut -f1)); $(( $(date +%s) - t0 )) s"

if [ "${KEEP_ROOTFS:-0}" = 1 ] && podman image exists "$base"; then
  say "podman import: reusing $base (so the build's layers are reused too)"
else
  say "podman import → $base"
  tar -C "$rootfs" -c . | podman import - "$base" >/dev/null
fi
t1=$(date +%s)
say "podman build --isolation=chroot → $image"
# A proxy that re-signs TLS (as on this machine) needs its CA in the build's npm: the host's bundle, read-only.
ca=()
[ -f /etc/ssl/certs/ca-certificates.crt ] && ca=(-v /etc/ssl/certs/ca-certificates.crt:/run/host-ca.crt:ro --build-arg npm_config_cafile=/run/host-ca.crt)
podman build --isolation=chroot --format docker --network=host "${ca[@]}" --build-arg "BASE=$base" -t "$image" -f "$here/Dockerfile" "$here" 2>&1 | tee "$work/build.log" | grep -E '^(STEP|COMMIT|Successfully)|added [0-9]+ packages|removed [0-9]+ packages' || true
[ "${PIPESTATUS[0]}" = 0 ] || { tail -30 "$work/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t1 )) s: $(podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image")"

# ---------------------------------------------------------------- run what the image holds
mnt=$(podman image mount "$image")
state=$(mktemp -d "$work/state-XXXXXX")
redis_dir=$(mktemp -d "$work/redis-XXXXXX")
mounted=()
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  podman image unmount "$image" >/dev/null 2>&1 || true
  rm -rf "$state" "$redis_dir"
}
trap cleanup EXIT
bind() { mount --bind "$1" "$2"; mounted+=("$2"); if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi; }
bind /proc "$mnt/proc"
bind /dev "$mnt/dev"
bind "$DIST" "$mnt/data/dist" ro
bind "$state" "$mnt/data/state"
mkdir -p "$state/a" "$state/b" && chown -R 10001:10001 "$state"

redis_port=${REDIS_PORT:-6391}
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$redis_dir" --appendonly yes --appendfsync everysec --save '' --daemonize no > "$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
url=redis://127.0.0.1:$redis_port

# The image's own environment (ENV in the Dockerfile) plus what a runtime would set.
image_env=$(podman image inspect --format '{{range .Config.Env}}{{.}} {{end}}' "$image")
run_in() { # run_in <state subfolder> <port> <command…>: as the image's user, in its root and workdir
  local sub=$1 port=$2; shift 2
  # exec all the way (chroot → env → sh → node): run in the background, $! is the server itself.
  exec chroot --userspec=10001:10001 "$mnt" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin $image_env HOME=/app HOST=127.0.0.1 PORT="$port" \
    ALMANAC_STATE_DIR="/data/state/$sub" ALMANAC_REDIS_URL="$url" /bin/sh -c 'cd /app && exec "$@"' sh "$@"
}

say "a key, with the image's keys CLI, in Redis"
key=$( (run_in a 0 node lib/server/cli/keys.js create --plan basic --label container --by build-here) | tail -1)
case $key in alm_*) echo "key made (${#key} characters; not shown)";; *) echo "no key: $key" >&2; exit 1;; esac

entry=$(podman image inspect --format '{{join .Config.Entrypoint " "}}' "$image")
say "two servers from the entry point ($entry), ports 8191 and 8192, on one Redis"
for s in a:8191 b:8192; do
  run_in "${s%%:*}" "${s##*:}" $entry > "$work/server-${s%%:*}.log" 2>&1 &
  pids+=($!)
done
for port in 8191 8192; do
  for _ in $(seq 300); do [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break; sleep 0.2; done
  echo "127.0.0.1:$port /readyz: $(curl -s "http://127.0.0.1:$port/readyz")"
done

say "a keyed request to each"
for port in 8191 8192; do
  code=$(curl -s -o "$work/fe-$port.json" -w '%{http_code}' -H "X-Service-Key: $key" "http://127.0.0.1:$port/apis/elements/Fe")
  usage=$(curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/v1/key" | node -e 'let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>{const d=JSON.parse(s).data;console.log(`current_usage ${d.current_usage}, remaining_calls ${d.remaining_calls}`)})')
  echo "127.0.0.1:$port /apis/elements/Fe → $code $(head -c 60 "$work/fe-$port.json")…; /api/v1/key → $usage"
done

say "the image's HEALTHCHECK command, in the image"
hc=$(podman image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")
node_code=$(printf '%s' "$hc" | node -e 'let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>{const t=JSON.parse(s);console.log(t[t.length-1])})')
if (run_in a 8191 node -e "$node_code"); then echo "healthcheck: exit 0"; else echo "healthcheck: failed"; exit 1; fi

say "SIGTERM: each drains and exits"
for i in 1 2; do
  p=${pids[$i]}
  kill -TERM "$p"
  if wait "$p"; then echo "server $i exited 0"; else echo "server $i exited $?"; fi
done
redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
wait "${pids[0]}" 2>/dev/null || true
echo
echo "access log lines: $(grep -ac '"status"' "$work/server-a.log" "$work/server-b.log" | tr '\n' ' ')"
echo "done in $(( $(date +%s) - t0 )) s"
