{{/* The services: name (the image argument and the resource name), values key, ports, internet egress. */}}
{{- define "wirehook.services" -}}
gateway: { key: gateway, ports: { http: 8080 }, egress: false, public: true }
message-intake: { key: messageIntake, ports: { grpc: 50051 }, egress: false, public: false }
dispatcher: { key: dispatcher, ports: {}, egress: true, public: false }
egress-relay: { key: egressRelay, ports: { grpc: 50052 }, egress: true, public: false }
recovery: { key: recovery, ports: { grpc: 50053 }, egress: false, public: false }
alerting: { key: alerting, ports: {}, egress: true, public: false }
portal: { key: portal, ports: { http: 8081 }, egress: false, public: true }
{{- end -}}

{{- define "wirehook.labels" -}}
app.kubernetes.io/name: wirehook
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "wirehook.secretName" -}}
{{- default (printf "%s-secrets" .Release.Name) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "wirehook.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
