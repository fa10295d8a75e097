# syntax=docker/dockerfile:1
#
# One image for every Hookstream Node process: the ingress, the policy-status consumer, the
# callback sender, the document fetcher, the delivery log and the `hookstream` CLI (topics job, demo partner). docker-compose.yml picks
# the process with `command:`. See ops/README.md.
#
#   docker build -t hookstream:local .
#   docker run --rm hookstream:local node cli/bin/hookstream.js --help

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# manifests: every package.json (root and workspaces) plus the lockfile, at their own paths.
# `npm ci` needs the manifest of every workspace; gathering them with find means a workspace
# added later needs no change here. Only these files leave this stage, so the `npm ci` layers
# below stay cached until a manifest or the lockfile changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -name node_modules -prune -o -type f \
      \( -name package.json -o -name package-lock.json -o -name .npmrc -o -path ./install/native-build-env.cjs \) -print0 \
    | xargs -0 cp --parents -t /manifests

# ---------------------------------------------------------------------------------------------
# build: all dependencies (typescript and esbuild are devDependencies), then `npm run build`:
# `tsc -b` over the whole tree and the console's bundle (services/delivery-log/dist/web).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
COPY --from=manifests /manifests/ ./
# --ignore-scripts: (1) the root "prepare" script runs `tsc -b`, which must wait until the
# sources are copied in; (2) the `node` devDependency's install script would download a second
# Node binary that this image already has. The one dependency that needs its install script, the
# Kafka client's native addon (librdkafka), gets it on its own: it downloads the prebuilt binary for
# this Node (statically linked; install/native-build-env.cjs covers a build from source where that
# download is not reachable).
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild @confluentinc/kafka-javascript
COPY . .
RUN npm run build

# ---------------------------------------------------------------------------------------------
# runtime: production dependencies and compiled output only, run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
COPY --from=manifests /manifests/ ./
# Same lockfile, production dependencies only (this also drops the `node` devDependency).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force
# Compiled packages. The layout matches the repository, so the code's relative paths hold:
# packages/kafka/dist/avro finds the Avro schemas at ../../../../schemas (SCHEMAS_DIR overrides it).
# The Kafka client's addon as built above (npm ci ran without install scripts here).
COPY --from=build /app/node_modules/@confluentinc/kafka-javascript/build ./node_modules/@confluentinc/kafka-javascript/build
COPY --from=build /app/schemas                               ./schemas
COPY --from=build /app/packages/errors/dist                         ./packages/errors/dist
COPY --from=build /app/packages/runtime/dist                        ./packages/runtime/dist
COPY --from=build /app/packages/kafka/dist                          ./packages/kafka/dist
COPY --from=build /app/packages/partners/dist                       ./packages/partners/dist
COPY --from=build /app/packages/contract/dist                       ./packages/contract/dist
COPY --from=build /app/packages/dead-letters/dist                   ./packages/dead-letters/dist
COPY --from=build /app/packages/service/dist                        ./packages/service/dist
COPY --from=build /app/cli/dist                              ./cli/dist
COPY --from=build /app/cli/bin                               ./cli/bin
COPY --from=build /app/services/ingress/dist                 ./services/ingress/dist
COPY --from=build /app/services/policy-status-consumer/dist  ./services/policy-status-consumer/dist
COPY --from=build /app/services/callback-sender/dist         ./services/callback-sender/dist
COPY --from=build /app/services/document-fetcher/dist        ./services/document-fetcher/dist
COPY --from=build /app/services/delivery-log/dist            ./services/delivery-log/dist

# Files stay owned by root (read-only for the app); the process runs as `node` (uid 1000).
USER node

# ingress API (8080) and ops (9080), policy-status-consumer ops, callback-sender ops,
# document-fetcher ops, delivery-log partner API (8094) and ops (9094), demo partner. Only the two
# APIs and the demo partner are for outside callers: the ops ports are for probes and Prometheus.
EXPOSE 8080 9080 8091 8092 8093 8094 9094 9999

# Liveness of whichever service runs here, on its ops port: OPS_PORT when set; else the ports its
# /healthz may be on (HTTP_PORT for the three services with one port, or the ingress's and the
# delivery log's default ops ports 9080 and 9094: their HTTP_PORT serves only their API), healthy
# when one answers 200. Only this container's own service listens on 127.0.0.1 here. The slim image
# has no curl, so Node's built-in fetch does the request. The topics job and the demo partner serve
# no /healthz: docker-compose.yml disables the check for them.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const e = process.env; const ports = e.OPS_PORT ? [e.OPS_PORT] : [e.HTTP_PORT || '8080', '9080', '9094']; Promise.any(ports.map((p) => fetch('http://127.0.0.1:' + p + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => (r.ok ? 0 : Promise.reject(new Error(String(r.status))))))).then(() => process.exit(0), () => process.exit(1))"]

# No default service: compose (or `docker run … node services/<name>/dist/main.js`) chooses one.
CMD ["node", "cli/bin/hookstream.js", "--help"]
