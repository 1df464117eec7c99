# syntax=docker/dockerfile:1
# The almanac read server (issue 38, item 8): built with the dev dependencies (a type-checked
# lib/), shipped with lib/ and the serving dependencies only; no release inside: dist/ and the
# state folder are volumes (build or pull a release into the dist volume: docs/operations.md,
# "Containers"). BASE: any Debian image whose nodejs is 20.19 or newer (trixie's is
# 20.19.2); where no image can be pulled, ops/container/build-here.sh makes one with
# debootstrap and passes it here.
ARG BASE=docker.io/library/debian:trixie-slim

FROM ${BASE} AS build
# better-sqlite3 compiles against Debian's Node headers (libnode-dev), as no prebuilt
# binary may be downloadable; npm_config_cafile: a CA bundle for a proxy that re-signs TLS
# (ops/container/build-here.sh passes the host's), else empty.
ARG npm_config_cafile
ENV npm_config_nodedir=/usr
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm libnode-dev python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The dependencies first, in a layer of their own (rebuilt only when the lock file changes):
# every package, better-sqlite3 compiled.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
# Then the sources: lib/ compiled with every type checked, and only what serving needs kept.
COPY bin ./bin
COPY tsconfig.json tsconfig.build.json ./
COPY sources ./sources
COPY pipeline ./pipeline
COPY server ./server
COPY reader ./reader
COPY edge ./edge
COPY ops ./ops
RUN node bin/compile.mjs && npm prune --omit=dev --no-audit --no-fund \
 && node -e "require('better-sqlite3')(':memory:').close()"

FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin almanac \
 && mkdir -p /data/dist /data/state && chown almanac:almanac /data/state
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/lib ./lib
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 ALMANAC_DIST=/data/dist ALMANAC_STATE_DIR=/data/state
VOLUME ["/data/dist", "/data/state"]
EXPOSE 8080
USER almanac
# Liveness (docs/operations.md, "Running it in production"); an orchestrator routes by /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains (ALMANAC_DRAIN_MS, 10 s): give the runtime a longer stop timeout.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "lib/server/cli/serve.js"]
