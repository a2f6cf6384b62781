# syntax=docker/dockerfile:1
# One image for every Wirehook service: the container's command names the service
# (gateway, message-intake, dispatcher, egress-relay, recovery, alerting, portal; jobs:
# migrate, admin). Node 24 runs the TypeScript directly (type stripping): no compile step.
#
# Reproducible: the base image is pinned by digest (node 24.18.0, bookworm-slim; Dependabot's
# docker updates move it), pnpm by the exact version package.json names, and the dependency
# layer is `pnpm fetch` from the lockfile (and patches/, our fixes to dependencies: pnpm's
# patchedDependencies, hashed in the lockfile), so it is rebuilt only when those change and
# the install after it is offline.
# The digest is written out in both FROM lines (Dependabot does not follow an ARG).
FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d AS build
WORKDIR /app
RUN npm install --global --no-audit --no-fund pnpm@10.34.9
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches ./patches
RUN pnpm fetch
COPY package.json ./
COPY packages ./packages
COPY services ./services
COPY scripts ./scripts
COPY proto ./proto
RUN pnpm install --frozen-lockfile --offline
# The portal's front end, built into services/portal/dist (served by the portal service).
RUN pnpm -s build:portal
# Only what runs: production dependencies.
RUN pnpm install --frozen-lockfile --prod --offline

FROM node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d
WORKDIR /app
ENV NODE_ENV=production LOG_FORMAT=json HOST=0.0.0.0 METRICS_HOST=0.0.0.0 GRPC_HOST=0.0.0.0
COPY --from=build /app /app
# A non-root user with no shell login; the root filesystem can be read-only (nothing is
# written outside DATA_DIR, which Kubernetes mounts when SQLite is used).
RUN useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin wirehook
USER 10001
# Node handles SIGTERM itself (every service drains and stops on it); no init needed for one process.
ENTRYPOINT ["node", "scripts/service.ts"]
CMD ["gateway"]
