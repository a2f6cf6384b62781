{{/* The services: name (the image argument and the resource name), values key, ports, internet egress. */}}
{{- define "wirehook.services" -}}
gateway: { key: gateway, ports: { http: 8080 }, egress: false }
message-intake: { key: messageIntake, ports: { grpc: 50051 }, egress: false }
dispatcher: { key: dispatcher, ports: {}, egress: true }
egress-relay: { key: egressRelay, ports: { grpc: 50052 }, egress: true }
recovery: { key: recovery, ports: { grpc: 50053 }, egress: false }
alerting: { key: alerting, ports: {}, egress: true }
portal: { key: portal, ports: { http: 8081 }, egress: false }
{{- end -}}

{{/* Whether a service runs in this release: the relay only with a pool to send from. */}}
{{- define "wirehook.enabled" -}}
{{- if eq .name "egress-relay" -}}{{- if .root.Values.relay.sourceIps }}true{{ end -}}{{- else -}}true{{- end -}}
{{- end -}}

{{- define "wirehook.labels" -}}
app.kubernetes.io/name: wirehook
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* A component's selector: what its Service, PDB and anti-affinity match (never changes across upgrades). */}}
{{- define "wirehook.selector" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "wirehook.secretName" -}}
{{- default (printf "%s-secrets" .Release.Name) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "wirehook.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{/* The JetStream stream's replicas: the value, or 3 with a 3-node bundled NATS, else 1. */}}
{{- define "wirehook.streamReplicas" -}}
{{- if and .Values.nats.enabled (not .Values.natsUrl) (gt (int .Values.jetstream.replicas) (int .Values.nats.replicas)) -}}
{{- fail (printf "jetstream.replicas (%v) cannot exceed the bundled NATS's nats.replicas (%v): JetStream refuses a stream with more replicas than servers" .Values.jetstream.replicas .Values.nats.replicas) -}}
{{- end -}}
{{- if gt (int .Values.jetstream.replicas) 0 -}}{{ .Values.jetstream.replicas }}
{{- else if and .Values.nats.enabled (ge (int .Values.nats.replicas) 3) -}}3
{{- else -}}1{{- end -}}
{{- end -}}

{{/* The pod-level settings every Wirehook pod shares. */}}
{{- define "wirehook.podCommon" -}}
serviceAccountName: {{ .Release.Name }}
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
Pods roll when what they read at start changes: the ConfigMap and the Secret. The chart's own
Secret changes only through its URLs (the key and the token are never replaced); an existing
Secret is looked up, which `helm upgrade` can and helm template (Argo CD) cannot: there, roll
the pods yourself after changing it (docs/operations.md).
*/}}
{{- define "wirehook.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/config.yaml") . | sha256sum }}
{{- if .Values.secrets.existingSecret }}
checksum/secret: {{ (toJson (default dict (lookup "v1" "Secret" .Release.Namespace .Values.secrets.existingSecret).data)) | sha256sum }}
{{- else }}
checksum/secret: {{ list .Values.mongodbUrl .Values.redisUrl .Values.natsUrl .Values.email.smtpUrl | toJson | sha256sum }}
{{- end }}
{{- end -}}

{{/* The bundled NATS answers here when natsUrl is empty (then NATS_URL is in the ConfigMap, not a secret). */}}
{{- define "wirehook.bundledNats" -}}
{{- if and .Values.nats.enabled (not .Values.natsUrl) -}}{{ printf "nats://%s-nats:4222" .Release.Name }}{{- end -}}
{{- end -}}

{{/* Egress every Wirehook pod has: DNS, pods in the cluster, the named external services. */}}
{{- define "wirehook.egressCommon" -}}
- ports:
    - { port: 53, protocol: UDP }
    - { port: 53, protocol: TCP }
- to:
    - namespaceSelector: {}
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
