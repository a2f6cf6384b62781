# syntax=docker/dockerfile:1
# One image for every Wirehook service: the container's command names the service
# (gateway, message-intake, dispatcher, egress-relay, recovery, alerting, portal; jobs:
# migrate, admin). Node 24 runs the TypeScript directly (type stripping): no compile step.

FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN npm install --global pnpm@10 && apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY packages ./packages
COPY services ./services
COPY scripts ./scripts
COPY proto ./proto
RUN pnpm install --frozen-lockfile
# The portal's front end, built into services/portal/dist (served by the portal service).
RUN pnpm -s build:portal
# Only what runs: production dependencies.
RUN pnpm install --frozen-lockfile --prod --offline

FROM node:24-bookworm-slim
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
