{{/*
The chart name, or nameOverride.
*/}}
{{- define "compositor.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the release's resources: fullnameOverride, else the release name when it already contains the
chart name, else "<release>-<chart>". Truncated to 63 characters (the DNS label limit of some name fields).
*/}}
{{- define "compositor.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
"<chart>-<version>" for the helm.sh/chart label.
*/}}
{{- define "compositor.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels of every resource.
*/}}
{{- define "compositor.labels" -}}
helm.sh/chart: {{ include "compositor.chart" . }}
{{ include "compositor.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: compositor
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels that select the release's pods (immutable in the Deployment's selector: never add to them).
*/}}
{{- define "compositor.selectorLabels" -}}
app.kubernetes.io/name: {{ include "compositor.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The ServiceAccount compositor runs as.
*/}}
{{- define "compositor.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "compositor.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The container image: repository@digest when a digest is set, else repository:tag (tag defaults to appVersion).
*/}}
{{- define "compositor.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
Whether leader election is on: asked for, or needed because more than one replica runs. Renders "true" or "false".
*/}}
{{- define "compositor.leaderElection" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicas) 1) }}true{{ else }}false{{ end }}
{{- end }}

{{/*
Whether a PodDisruptionBudget is rendered. Renders "true" or "".
*/}}
{{- define "compositor.podDisruptionBudget" -}}
{{- if or .Values.podDisruptionBudget.enabled (gt (int .Values.replicas) 1) }}true{{ end }}
{{- end }}

{{/*
A number as compositor parses it: whole numbers without an exponent (values files decode numbers as float64, which
would print 1000000 as 1e+06), others as they are.
*/}}
{{- define "compositor.number" -}}
{{- if eq (float64 .) (float64 (int64 .)) }}{{ int64 . }}{{ else }}{{ . }}{{ end }}
{{- end }}

{{/*
The verbs compositor needs on a kind it fully manages.
*/}}
{{- define "compositor.allVerbs" -}}
[get, list, watch, create, update, patch, delete]
{{- end }}

{{/*
The container arguments: `start`, then one "--<flag>=<value>" per flag of `compositor start` whose value is not
null, then extraArgs. The chart manages the CRDs (crds/), so compositor never installs them; --kubeconfig is never
passed (compositor uses the pod's ServiceAccount).
*/}}
{{- define "compositor.args" -}}
{{- $v := .Values }}
{{- $flags := list
  (list "poll-interval" $v.pollInterval)
  (list "min-poll-interval" $v.minPollInterval)
  (list "sync-interval" $v.syncInterval)
  (list "max-reconcile-rate" $v.maxReconcileRate)
  (list "max-concurrent-reconciles" $v.maxConcurrentReconciles)
  (list "max-concurrent-applies" $v.maxConcurrentApplies)
  (list "max-composed-resources" $v.maxComposedResources)
  (list "fair-queue" $v.fairQueue)
  (list "max-composition-revisions" $v.maxCompositionRevisions)
  (list "enable-realtime-compositions" $v.realtimeCompositions)
  (list "circuit-breaker-burst" $v.circuitBreaker.burst)
  (list "circuit-breaker-refill-rate" $v.circuitBreaker.refillRate)
  (list "circuit-breaker-cooldown" $v.circuitBreaker.cooldown)
  (list "circuit-breaker-half-open-interval" $v.circuitBreaker.halfOpenInterval)
  (list "leader-election" (include "compositor.leaderElection" .))
  (list "leader-election-namespace" ($v.leaderElection.namespace | default .Release.Namespace))
  (list "leader-election-lease-duration" $v.leaderElection.leaseDuration)
  (list "leader-election-renew-deadline" $v.leaderElection.renewDeadline)
  (list "leader-election-retry-period" $v.leaderElection.retryPeriod)
  (list "shard-index" $v.sharding.index)
  (list "shard-count" $v.sharding.count)
  (list "function-timeout" $v.functions.timeout)
  (list "function-insecure" $v.functions.insecure)
  (list "function-tls-dir" $v.functions.tls.mountPath)
  (list "builtin-functions" $v.functions.builtin)
  (list "builtin-function-registries" (ternary (join "," $v.functions.builtinRegistries) nil (kindIs "slice" $v.functions.builtinRegistries)))
  (list "package-runtime" $v.functions.packageRuntime)
  (list "xpkg-cache-dir" $v.packages.cacheDir)
  (list "enable-dependency-version-upgrades" $v.packages.dependencyVersionUpgrades)
  (list "enable-dependency-version-downgrades" $v.packages.dependencyVersionDowngrades)
  (list "enable-function-response-cache" $v.functions.responseCache.enabled)
  (list "xfn-cache-max-ttl" $v.functions.responseCache.maxTtl)
  (list "metrics-bind-address" (printf ":%s" (include "compositor.number" $v.metrics.port)))
  (list "health-probe-bind-address" (printf ":%s" (include "compositor.number" $v.healthProbePort)))
  (list "log-level" $v.logLevel)
  (list "graceful-shutdown-timeout" $v.gracefulShutdownTimeout)
  (list "idle-heap-compaction" $v.idleHeapCompaction)
  (list "heap-growth-percent" $v.heapGrowthPercent)
  (list "manage-composite-rbac" $v.rbac.manageCompositeRoles)
  (list "enable-nop-provider" $v.nopProvider.enabled)
  (list "enable-usages" $v.usages.enabled)
  (list "enable-operations" $v.operations.enabled)
  (list "enable-providers" $v.providers.enabled)
  (list "manage-provider-rbac" $v.rbac.manageProviderRoles)
  (list "default-activations" (ternary (join "," $v.providers.defaultActivations) nil (kindIs "slice" $v.providers.defaultActivations)))
  (list "enable-composed-resource-ordering" $v.composedResourceOrdering.enabled)
  (list "managed-poll-interval" $v.managed.pollInterval)
}}
{{- $args := list "start" "--install-crds=false" }}
{{- range $flags }}
{{- $value := index . 1 }}
{{- if not (kindIs "invalid" $value) }}
{{- if or (kindIs "float64" $value) (kindIs "int64" $value) (kindIs "int" $value) }}
{{- $value = include "compositor.number" $value }}
{{- end }}
{{- $args = append $args (printf "--%s=%v" (index . 0) $value) }}
{{- end }}
{{- end }}
{{- toYaml (concat $args (default list $v.extraArgs)) }}
{{- end }}
