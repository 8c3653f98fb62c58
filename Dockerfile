# The service image compose.yaml runs (docs/operations.md "Several processes"): Node 24 LTS,
# the compiled build (tools/build.mjs, no TypeScript at run time), production dependencies
# only, one process per container; SVC_ROLE picks API or worker.
# A first stage with the dev dependencies compiles the service and the web console
# (docs/console.md); only their output is copied into the image.
FROM node:24-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tools ./tools
COPY domain ./domain
COPY projections ./projections
COPY adapters ./adapters
COPY runtime ./runtime
COPY console ./console
RUN node tools/build.mjs && npx vite build console

FROM node:24-bookworm-slim
# git: runbooks synced from a Git repository (SVC_RUNBOOK_GIT_*); tini: PID 1 that forwards
# SIGTERM and reaps children, so `docker stop` shuts the service down in order.
RUN apt-get update && apt-get install -y --no-install-recommends git tini ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY --from=build /build/dist ./dist
COPY --from=build /build/console/dist ./console/dist
COPY runbooks ./runbooks
COPY case-templates ./case-templates
COPY packs ./packs
# Node's compile cache of the bundle, filled once here by a command that loads the whole
# service (svc openapi, on a throwaway embedded database): a container's first start, and
# every restart of a crash loop, reads the compiled code instead of compiling it again.
ENV NODE_COMPILE_CACHE=/app/.node-compile-cache
RUN node bin/svc.js openapi > /dev/null
# The attachments volume starts as a copy of this directory, owned by the user that runs.
RUN mkdir /data && chown node:node /data
USER node
EXPOSE 8080 9101
# The API's /healthz, or a worker-only container's /healthz on its metrics port (bin/healthcheck.js).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "bin/healthcheck.js"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/svc.js", "serve"]
