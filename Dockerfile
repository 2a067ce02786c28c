# syntax=docker/dockerfile:1
# Multi-stage image for the server and the worker (the same image, different commands): the
# compiled JavaScript in dist/ run by plain node (`node dist/worker/index.js` for the worker).

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# What the build made and what it reads at run time; no TypeScript, no tsx (docs/decisions/066).
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY scripts/ensure-build.mjs ./scripts/ensure-build.mjs
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# Alive (the process answers), not ready: an orchestrator that replaces unhealthy containers must
# not restart every server while the database is away. docker-compose.yml checks /readyz instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server/index.js"]
