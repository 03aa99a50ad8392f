# The bot for production: built with its dev dependencies, run with its production ones only, as
# the unprivileged `node` user, with plain node on the build (no tsx at start). See docs/deploy.md.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The sources are not here yet, so `prepare` (the build) is run below, not on install.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/.data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# What the package ships (package.json "files"): the build (ES modules, and the CommonJS entry),
# the SQL migrations, the sandbox's page.
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/cjs ./dist/cjs
COPY migrations ./migrations
COPY src/sandbox/public ./src/sandbox/public
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# Liveness only (/healthz); point a load balancer's or orchestrator's readiness probe at /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The bot drains on SIGTERM within SHUTDOWN_TIMEOUT_MS (default 10 s); give it longer than that
# before the runtime kills it (docker stop -t 15, Kubernetes terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
