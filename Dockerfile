# The lab's mock API as a small, non-root image.
#
# Default (what `make up` and users get): an ordinary multi-stage build. `npm ci` and the TypeScript
# build (tsc, then esbuild bundles the service's entry: esbuild.config.mjs) run in a build stage; only
# dist/, the production node_modules and package.json reach the runtime stage.
#
#   NODE_IMAGE     base of both stages, pinned by digest; override it to use another (or a local) image.
#   APP_ARTEFACTS  where the runtime stage copies /app from: the build stage (default) or an image that
#                  already holds /app/{dist,node_modules,package.json}. The engine test uses the latter,
#                  since a build on a machine without a registry cannot run `npm ci` inside the image
#                  (test/engine/run.sh; needs BuildKit, which skips the unused build stage).
ARG NODE_IMAGE=node:20.20.2-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0
ARG APP_ARTEFACTS=build

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json esbuild.config.mjs ./
COPY app ./app
RUN npm run build \
  && mkdir reports \
  && npm ci --omit=dev --ignore-scripts \
  && rm -rf app tsconfig.json tsconfig.build.json esbuild.config.mjs package-lock.json

FROM ${APP_ARTEFACTS} AS artefacts

# The lab's walls (compose.yaml's `walls` service, docker/walls/walls.sh, mounted from the checkout): the
# same base with Debian's iptables, which holds both of a host's kinds (nft and legacy).
FROM ${NODE_IMAGE} AS walls
RUN apt-get update \
  && apt-get install -y --no-install-recommends iptables \
  && rm -rf /var/lib/apt/lists/*
CMD ["sh", "/walls.sh"]

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8081
WORKDIR /app
# Owned by root and not writable by the service's user: the code is immutable at run time.
COPY --from=artefacts /app/package.json ./package.json
COPY --from=artefacts /app/node_modules ./node_modules
COPY --from=artefacts /app/dist ./dist
# The lab's reports volume is mounted here: owned by the service's user, so a new volume is too.
COPY --from=artefacts --chown=1000:1000 /app/reports /reports
# uid 1000 is `node` in the official image (and in the engine test's base); numeric, so no passwd lookup.
USER 1000:1000
EXPOSE 8081
# No curl or wget in the image: node itself probes /health. `main.js` handles SIGTERM (exits within 2 s).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8081)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/app/api/main.js"]
