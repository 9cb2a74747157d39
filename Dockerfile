# syntax=docker/dockerfile:1
# The compositor container image: `docker build -t compositor:0.1.0 .` from the repository root.
# The Helm chart (charts/compositor) runs it as `compositor start` with user 65532 and a read-only root filesystem.

# --- build: compile TypeScript to dist/ and keep only the production dependencies --------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /src

# Dependencies first, so this layer is reused while only the sources change. The lockfile pins Node.js itself as a
# dev dependency (the `node` package, whose install script fetches its binary); that is only used in this stage.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# tsconfig.build.json compiles src/ and e2e/controlplane/ (which `compositor dev` imports) into dist/.
COPY tsconfig.json tsconfig.build.json ./
COPY src/ src/
COPY e2e/controlplane/ e2e/controlplane/
COPY bin/ bin/
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- runtime ------------------------------------------------------------------------------------------------------
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production

# npm and corepack are not needed to run compositor; removing them shrinks the image and what scanners report.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack

# package.json marks the package root: compositor finds the files it reads at run time from there (packageRoot()),
# namely the CRD manifests (src/apis/crds) and the function protocol (src/functions/proto). Files stay owned by root
# and read-only for the process.
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules/ node_modules/
COPY --from=build /src/dist/ dist/
COPY --from=build /src/bin/ bin/
COPY --from=build /src/src/apis/crds/ src/apis/crds/
COPY --from=build /src/src/functions/proto/ src/functions/proto/

# `compositor` on PATH, so `kubectl exec deploy/compositor -- compositor diagnose` works as the docs show it. Node.js
# resolves the link, so bin/compositor.js finds dist/ beside itself.
RUN ln -s /app/bin/compositor.js /usr/local/bin/compositor

# The distroless "nonroot" ids, as the chart's securityContext expects.
USER 65532:65532
# 8080: /metrics (--metrics-bind-address); 8081: /healthz and /readyz (--health-probe-bind-address).
EXPOSE 8080 8081
# The Node.js flags of src/manager/nodeFlags.ts (a test keeps the two the same).
ENTRYPOINT ["node", "--max-semi-space-size=16", "bin/compositor.js"]
CMD ["start"]
