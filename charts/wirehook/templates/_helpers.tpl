{{/* The services: name (the image argument and the resource name), values key, ports, internet egress. */}}
{{- define "wirehook.services" -}}
gateway: { key: gateway, ports: { http: 8080 }, egress: false }
message-intake: { key: messageIntake, ports: { grpc: 50051 }, egress: false }
dispatcher: { key: dispatcher, ports: {}, egress: true, sendsWebhooks: true }
egress-relay: { key: egressRelay, ports: { grpc: 50052 }, egress: true, sendsWebhooks: true }
recovery: { key: recovery, ports: { grpc: 50053 }, egress: false }
alerting: { key: alerting, ports: {}, egress: true }
portal: { key: portal, ports: { http: 8081 }, egress: false }
{{- end -}}

{{/* Whether a service runs in this release: the relay only with a pool to send from. */}}
{{- define "wirehook.enabled" -}}
{{- if eq .name "egress-relay" -}}{{- if .root.Values.relay.sourceIps }}true{{ end -}}{{- else -}}true{{- end -}}
{{- end -}}

{{/* app.kubernetes.io/name: wirehook, or nameOverride. */}}
{{- define "wirehook.name" -}}
{{- default "wirehook" .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The first part of every object's name: the release name (the names every earlier version made,
the Secrets' above all), <release>-<nameOverride> with a nameOverride the release name does not
contain, or fullnameOverride. Cut to 39 characters: the longest suffix the chart adds is
"-message-intake-headless" (24), and a Service name may have 63.
*/}}
{{- define "wirehook.fullname" -}}
{{- $name := .Release.Name -}}
{{- if .Values.fullnameOverride -}}
{{- $name = .Values.fullnameOverride -}}
{{- else if and .Values.nameOverride (not (contains .Values.nameOverride .Release.Name)) -}}
{{- $name = printf "%s-%s" .Release.Name .Values.nameOverride -}}
{{- end -}}
{{- $name | trunc 39 | trimSuffix "-" -}}
{{- end -}}

{{- define "wirehook.labels" -}}
app.kubernetes.io/name: {{ include "wirehook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 }}
{{- end -}}

{{/*
A component's selector: what its Deployment, Service, PDB and anti-affinity match. Since chart
1.0.0 it carries app.kubernetes.io/name; a Deployment's selector cannot change, so an upgrade
from 0.x deletes the old Deployments first (README.md, "Upgrading"; wirehook.selectorGuard).
*/}}
{{- define "wirehook.selector" -}}
app.kubernetes.io/name: {{ include "wirehook.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Every pod of the release (NetworkPolicies). */}}
{{- define "wirehook.releasePods" -}}
app.kubernetes.io/name: {{ include "wirehook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
An upgrade from chart 0.x: its Deployments' and StatefulSet's selectors lack
app.kubernetes.io/name, and Kubernetes refuses to change a selector. Helm would fail half-way
with "field is immutable"; this stops the render first and says what to do. (A render without
a cluster cannot look: Argo CD users follow the same notes.)
*/}}
{{- define "wirehook.selectorGuard" -}}
{{- /* 0.x's names: <release>-<component>, uncut, whatever the overrides say now. */ -}}
{{- $kinds := list (list "Deployment" (printf "%s-gateway" .Release.Name)) (list "StatefulSet" (printf "%s-nats" .Release.Name)) -}}
{{- range $kinds -}}
{{- $found := lookup "apps/v1" (index . 0) $.Release.Namespace (index . 1) -}}
{{- if $found -}}
{{- $selector := dig "spec" "selector" "matchLabels" dict $found -}}
{{- if not (hasKey $selector "app.kubernetes.io/name") -}}
{{- fail (printf "%s %s was made by chart 0.x, whose selectors Kubernetes cannot change: delete the release's Deployments and StatefulSet without their pods first (kubectl -n %s delete deployment,statefulset -l app.kubernetes.io/instance=%s --cascade=orphan), then upgrade; the new ones adopt the running pods (charts/wirehook/README.md, \"Upgrading from 0.x\")" (index . 0) (index . 1) $.Release.Namespace $.Release.Name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret of the URLs (and, with secrets.existingSecret, everything). */}}
{{- define "wirehook.secretName" -}}
{{- default (printf "%s-secrets" (include "wirehook.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* What <fullname>-secrets holds (the data: block's lines): the URLs the values give. */}}
{{- define "wirehook.urlSecretData" -}}
MONGODB_URL: {{ required "mongodbUrl is required (or secrets.existingSecret)" .Values.mongodbUrl | b64enc }}
REDIS_URL: {{ required "redisUrl is required (or secrets.existingSecret)" .Values.redisUrl | b64enc }}
{{- if .Values.natsUrl }}
NATS_URL: {{ .Values.natsUrl | b64enc }}
{{- else if not .Values.nats.enabled }}
{{- fail "natsUrl is required (or nats.enabled=true for NATS in the release, or secrets.existingSecret)" }}
{{- end }}
{{- with .Values.email.smtpUrl }}
SMTP_URL: {{ . | b64enc }}
{{- end }}
{{- end -}}

{{/* The Secret of the generated key ring and token: made once, never changed by Helm (templates/keys.yaml). */}}
{{- define "wirehook.keysSecretName" -}}
{{- printf "%s-keys" (include "wirehook.fullname" .) -}}
{{- end -}}

{{/*
An image reference from { repository, tag, digest }: <repository>:<tag>@<digest>, the tag or
the digest alone when the other is empty. global.imageRegistry replaces the registry (the first
path part when it is a host: it has a dot or a port, or is localhost); a Docker Hub short name
(nats, natsio/x) is put under it as Docker Hub names it (library/nats, natsio/x).
*/}}
{{- define "wirehook.imageRef" -}}
{{- $repo := .image.repository -}}
{{- with .root.Values.global.imageRegistry -}}
{{- $parts := splitList "/" $repo -}}
{{- $first := first $parts -}}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) -}}
{{- $parts = rest $parts -}}
{{- else if eq (len $parts) 1 -}}
{{- $parts = list "library" $first -}}
{{- end -}}
{{- $repo = printf "%s/%s" (trimSuffix "/" .) (join "/" $parts) -}}
{{- end -}}
{{- $repo -}}
{{- with .image.tag }}:{{ . }}{{ end -}}
{{- with .image.digest }}@{{ . }}{{ end -}}
{{- end -}}

{{/* The Wirehook image: image.*, its tag the appVersion by default. */}}
{{- define "wirehook.image" -}}
{{- /*
The digest: image.digest, else the one the release pinned for the appVersion's image
(Chart.yaml's wirehook.dev/image-digest, written by scripts/release-check.sh) while no other tag
is asked for: a tag of the user's own is pulled by that tag, not by our build's digest.
*/ -}}
{{- $pinned := "" -}}
{{- if or (not .Values.image.tag) (eq .Values.image.tag .Chart.AppVersion) -}}
{{- with .Chart.Annotations -}}{{- $pinned = default "" (index . "wirehook.dev/image-digest") -}}{{- end -}}
{{- end -}}
{{- $image := dict "repository" .Values.image.repository "tag" (default .Chart.AppVersion .Values.image.tag) "digest" (default $pinned .Values.image.digest) -}}
{{- include "wirehook.imageRef" (dict "root" . "image" $image) -}}
{{- end -}}

{{/* The JetStream stream's replicas: the value, or 3 with a 3-node bundled NATS, else 1. */}}
{{- define "wirehook.streamReplicas" -}}
{{- if and (include "wirehook.bundledNatsOn" .) (gt (int .Values.jetstream.replicas) (int .Values.nats.replicas)) -}}
{{- fail (printf "jetstream.replicas (%v) cannot exceed the bundled NATS's nats.replicas (%v): JetStream refuses a stream with more replicas than servers" .Values.jetstream.replicas .Values.nats.replicas) -}}
{{- end -}}
{{- if gt (int .Values.jetstream.replicas) 0 -}}{{ .Values.jetstream.replicas }}
{{- else if and (include "wirehook.bundledNatsOn" .) (ge (int .Values.nats.replicas) 3) -}}3
{{- else -}}1{{- end -}}
{{- end -}}

{{/*
Scheduling and metadata of one pod: podDefaults with the pod's own values over them.
Takes { root, own }; renders a dict as YAML: labels, annotations, nodeSelector (merged, the
pod's own winning), tolerations (podDefaults' then the pod's), affinity (the pod's, else
podDefaults'), priorityClassName (the pod's). Read it back with fromYaml.
*/}}
{{- define "wirehook.scheduling" -}}
{{- $d := .root.Values.podDefaults -}}
{{- $own := .own -}}
{{- $out := dict
  "labels" (merge (deepCopy (default dict $own.podLabels)) (deepCopy (default dict $d.podLabels)))
  "annotations" (merge (deepCopy (default dict $own.podAnnotations)) (deepCopy (default dict $d.podAnnotations)))
  "nodeSelector" (merge (deepCopy (default dict $own.nodeSelector)) (deepCopy (default dict $d.nodeSelector)))
  "tolerations" (concat (default list $d.tolerations) (default list $own.tolerations))
  "affinity" (default (default dict $d.affinity) $own.affinity)
  "priorityClassName" (default "" $own.priorityClassName)
-}}
{{- toYaml $out -}}
{{- end -}}

{{/* A pod spec's nodeSelector, tolerations and priorityClassName from wirehook.scheduling's dict (affinity is each pod's own business). */}}
{{- define "wirehook.podPlacement" -}}
{{- $out := dict -}}
{{- with .nodeSelector }}{{ $_ := set $out "nodeSelector" . }}{{ end -}}
{{- with .tolerations }}{{ $_ := set $out "tolerations" . }}{{ end -}}
{{- with .priorityClassName }}{{ $_ := set $out "priorityClassName" . }}{{ end -}}
{{- if $out }}{{ toYaml $out }}{{ end -}}
{{- end -}}

{{/* The pod-level settings every Wirehook pod shares. */}}
{{- define "wirehook.podCommon" -}}
serviceAccountName: {{ include "wirehook.fullname" . }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{- define "wirehook.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/*
Pods roll when what they read at start changes: the ConfigMap, the Secret of the URLs, and the
NATS credentials given as values. The generated Secrets (the key ring, the bundled NATS's
credentials) never change through Helm; an existing Secret is looked up, which `helm upgrade`
can and helm template (Argo CD) cannot: there, roll the pods yourself after changing it
(docs/operations.md).
*/}}
{{- define "wirehook.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/config.yaml") . | sha256sum }}
{{- if .Values.secrets.existingSecret }}
checksum/secret: {{ (toJson (default dict (lookup "v1" "Secret" .Release.Namespace .Values.secrets.existingSecret).data)) | sha256sum }}
{{- else }}
checksum/secret: {{ list .Values.mongodbUrl .Values.redisUrl .Values.natsUrl .Values.email.smtpUrl | toJson | sha256sum }}
{{- end }}
checksum/nats-client: {{ list .Values.nats.auth .Values.nats.tls (include "wirehook.natsPrefix" .) | toJson | sha256sum }}
{{- end -}}

{{/* "true" when the bundled NATS runs: nats.enabled and no natsUrl. */}}
{{- define "wirehook.bundledNatsOn" -}}
{{- if and .Values.nats.enabled (not .Values.natsUrl) -}}true{{- end -}}
{{- end -}}

{{/* The bundled NATS's address when it runs (then NATS_URL is in the ConfigMap, not a secret). */}}
{{- define "wirehook.bundledNats" -}}
{{- if include "wirehook.bundledNatsOn" . -}}{{ printf "nats://%s-nats:4222" (include "wirehook.fullname" .) }}{{- end -}}
{{- end -}}

{{/*
NATS_PREFIX: nats.prefix, or <namespace>-<fullname> (two releases of one name in two namespaces
may share a NATS), cut to the app's 32 characters with 8 hex characters of its hash when longer.
*/}}
{{- define "wirehook.natsPrefix" -}}
{{- if .Values.nats.prefix -}}{{ .Values.nats.prefix }}
{{- else -}}
{{- $full := printf "%s-%s" .Release.Namespace (include "wirehook.fullname" .) | lower -}}
{{- if le (len $full) 32 -}}{{ $full }}
{{- else -}}{{ printf "%s-%s" ($full | trunc 23 | trimSuffix "-" | trimSuffix "_") ($full | sha256sum | trunc 8) }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* A Kubernetes quantity (128Mi, 10Gi, 1G, 500000) in bytes. */}}
{{- define "wirehook.bytes" -}}
{{- $q := toString .value -}}
{{- $number := regexFind "^[0-9]+" $q -}}
{{- $unit := trimPrefix $number $q -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- if or (not $number) (not (hasKey $units $unit)) -}}
{{- fail (printf "%s: %q is not a whole quantity such as 512Mi, 1Gi or 10G" .what $q) -}}
{{- end -}}
{{- mul (atoi $number) (index $units $unit) -}}
{{- end -}}

{{/*
The DNS egress rule: port 53 to the cluster's DNS pods and to networkPolicy.dns.addresses
(NodeLocal DNS's address; the kube-dns ClusterIP, looked up at install unless turned off).
*/}}
{{- define "wirehook.dnsEgress" -}}
{{- $dns := .Values.networkPolicy.dns -}}
{{- $addresses := default list $dns.addresses -}}
{{- if $dns.lookupClusterIP -}}
{{- $ip := include "set networkPolicy.dns.lookupClusterIP=false if this lookup is forbidden" . -}}
{{- /* Nothing found (rendered without a cluster: helm template, Argo CD; or no such Service): not silently one address less. */ -}}
{{- if not $ip -}}
{{- fail (printf "networkPolicy.dns.lookupClusterIP: the ClusterIP of the Service %s/%s was not found (rendered without a cluster, e.g. helm template or Argo CD, or the DNS Service has another name: networkPolicy.dns.service), and with NodeLocal DNS in iptables mode DNS answers on it: list it in networkPolicy.dns.addresses (kubectl -n %s get svc %s -o jsonpath='{.spec.clusterIP}') and set networkPolicy.dns.lookupClusterIP=false" $dns.service.namespace $dns.service.name $dns.service.namespace $dns.service.name) -}}
{{- end -}}
{{- $addresses = append $addresses (printf "%s/%s" $ip (ternary "128" "32" (contains ":" $ip))) -}}
{{- end -}}
- to:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: {{ $dns.namespace }}
      podSelector:
        matchLabels:
          {{- toYaml $dns.podLabels | nindent 10 }}
    {{- range uniq $addresses }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  ports:
    - { port: 53, protocol: UDP }
    - { port: 53, protocol: TCP }
{{- end -}}

{{/*
The DNS Service's ClusterIP, looked up (empty under helm template). Named after what to do when
the deployer may not read it: Helm's "forbidden" error quotes the template's name.
*/}}
{{- define "set networkPolicy.dns.lookupClusterIP=false if this lookup is forbidden" -}}
{{- $svc := .Values.networkPolicy.dns.service -}}
{{- $found := lookup "v1" "Service" $svc.namespace $svc.name -}}
{{- $ip := dig "spec" "clusterIP" "" $found -}}
{{- if regexMatch "^[0-9a-fA-F.:]+$" $ip -}}{{ $ip }}{{- end -}}
{{- end -}}

{{/* Egress to the external services the values name (networkPolicy.externalServices). */}}
{{- define "wirehook.externalEgress" -}}
{{- range .Values.networkPolicy.externalServices }}
- to:
    - ipBlock:
        cidr: {{ .cidr }}
  ports:
    {{- range .ports }}
    - { port: {{ . }}, protocol: TCP }
    {{- end }}
{{- end }}
{{- end -}}

{{/*
In the cluster, for the pods that send to customers: the release's own pods, and the in-cluster
services networkPolicy.clusterServices names (a MongoDB, Redis, NATS, OTLP collector or SMTP
relay running as pods), each on its ports. Not every pod: a customer's URL that reaches a pod is
refused by the code's guard, and this keeps it refused if the guard ever lets one through.
*/}}
{{- define "wirehook.senderClusterEgress" -}}
- to:
    - podSelector:
        matchLabels:
          {{- include "wirehook.releasePods" . | nindent 10 }}
{{- $namespace := .Release.Namespace }}
{{- range .Values.networkPolicy.clusterServices }}
- to:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: {{ default $namespace .namespace }}
      podSelector:
        {{- if .podLabels }}
        matchLabels:
          {{- toYaml .podLabels | nindent 10 }}
        {{- else }} {}
        {{- end }}
  ports:
    {{- range .ports }}
    - { port: {{ . }}, protocol: TCP }
    {{- end }}
{{- end }}
{{- end -}}

{{/*
Refuses URL values that name a Service of the cluster (a name without a dot, or one under .svc
or .cluster.local) while networkPolicy.clusterServices is empty: the pods that send to
customers would lose it the moment the policy applies. Names like mongo-0.mongo are not
recognised; the upgrade notes say to list those too.
*/}}
{{- define "wirehook.inClusterUrlCheck" -}}
{{- $np := .Values.networkPolicy -}}
{{- if and $np.enabled (not $np.clusterServices) -}}
{{- range $name, $url := dict "mongodbUrl" .Values.mongodbUrl "redisUrl" .Values.redisUrl "natsUrl" .Values.natsUrl "email.smtpUrl" .Values.email.smtpUrl -}}
{{- if $url -}}
{{- $hosts := regexReplaceAll "^[A-Za-z0-9+.-]+://([^@/]*@)?([^/?#]*).*$" $url "${2}" -}}
{{- range splitList "," $hosts -}}
{{- $host := lower (regexReplaceAll ":[0-9]+$" . "") -}}
{{- if and $host (not (hasPrefix "[" $host)) (ne $host "localhost") (or (not (contains "." $host)) (regexMatch "\\.(svc|cluster\\.local)\\.?$" $host)) -}}
{{- fail (printf "%s names %s, a Service of the cluster: the dispatcher, the relay and alerting reach in the cluster only the release's own pods and networkPolicy.clusterServices, so list it there ([{ namespace, podLabels, ports }])" $name $host) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
A pod template's labels: the pod's own and podDefaults' (from wirehook.scheduling), then the
chart's and `extra` over them (the selector's labels cannot be overridden). Takes { root, place, extra }.
*/}}
{{- define "wirehook.podLabels" -}}
{{- $labels := merge (deepCopy (default dict .extra)) (fromYaml (include "wirehook.labels" .root)) (deepCopy (default dict .place.labels)) -}}
{{- toYaml $labels -}}
{{- end -}}
