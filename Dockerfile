# The service image compose.yaml runs (docs/operations.md "Several processes"): Node 22 LTS,
# production dependencies only, one process per container; SVC_ROLE picks API or worker.
# The web console (docs/console.md) is built in a first stage with the dev dependencies
# and only its static output is copied into the image.
FROM node:22-bookworm-slim AS console-build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY console ./console
RUN npx vite build console

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY domain ./domain
COPY projections ./projections
COPY adapters ./adapters
COPY runtime ./runtime
COPY runbooks ./runbooks
COPY case-templates ./case-templates
COPY packs ./packs
COPY --from=console-build /build/console/dist ./console/dist
COPY tsconfig.json ./
# The attachments volume starts as a copy of this directory, owned by the user that runs.
RUN mkdir /data && chown node:node /data
USER node
EXPOSE 8080 9101
CMD ["node", "bin/svc.js", "serve"]
