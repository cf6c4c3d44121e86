# syntax=docker/dockerfile:1
# The catalogue API on the official Bun image (docs/operations.md).
#   docker build -t catalogue-api .
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://user:pass@db:5432/catalogue catalogue-api
# See docs/operations.md for every setting, migrations, tracing, logs and scaling out.
ARG BUN_VERSION=1.4.5

# Production dependencies only, exactly as locked.
FROM oven/bun:${BUN_VERSION}-slim AS deps
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production

FROM oven/bun:${BUN_VERSION}-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bun.lock tsconfig.json ./
COPY sql ./sql
COPY src ./src
# Only the embedded database (no DATABASE_URL) and the snapshots write, and only here; the code stays root-owned.
RUN mkdir -p /app/data /app/snapshots && chown bun:bun /app/data /app/snapshots
USER bun
EXPOSE 3000
# Liveness without curl: Bun itself asks /v1/health (no database, never rate limited).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/v1/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains requests in flight (up to 10 s) and closes the database; give it that long.
STOPSIGNAL SIGTERM
CMD ["bun", "--max-http-header-size=131072", "src/main.ts"]
