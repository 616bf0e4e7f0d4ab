# syntax=docker/dockerfile:1
# engage as a container image: a build stage compiles the TypeScript, the runtime stage holds
# only the production dependencies (npm ci --omit=dev), the compiled dist/, bin/ (npx engage-admin) and the files it
# reads at run time (migrations, the web stylesheet), and runs as the unprivileged `node` user.
# test/packaging/container.test.ts checks that what is named here exists.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/
# Scripts off: `prepare` would build before the sources are here; the build runs below.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/
# `prepare` compiles with TypeScript, a devDependency: dist/ comes from the build stage
# instead. The other install scripts run (the embedded PostgreSQL binaries need theirs).
RUN npm pkg delete scripts.prepare \
 && npm ci --omit=dev \
 && npm cache clean --force
COPY --from=build /app/dist dist
COPY bin bin
COPY migrations migrations
COPY src/web/assets src/web/assets

# Without DATABASE_URL the embedded PostgreSQL keeps its cluster here (and, without
# WEBHOOK_SECRET_KEY, the generated secret.key): a volume, so data outlive the container.
ENV DATA_DIR=/var/lib/engage \
    PORT=3000 \
    HOST=0.0.0.0
RUN mkdir -p /var/lib/engage && chown node:node /var/lib/engage
VOLUME /var/lib/engage
USER node
EXPOSE 3000

# /readyz: the process answers and its database does (no curl in the slim image: node's fetch).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# What `npm start` runs (`exec node -r ./bin/check-node.cjs dist/server.js`), without npm and a shell in between,
# so SIGTERM from `docker stop` reaches node itself.
CMD ["node", "-r", "./bin/check-node.cjs", "dist/server.js"]
