{{/*
How Wirehook authenticates to NATS (nats.auth) and reaches it over TLS (nats.tls): which kind,
which Secret holds the material, and what every Wirehook pod gets from it (environment
variables for a user/password or a token, files under /etc/wirehook/nats for an nkey seed, a
.creds file and TLS). The application reads NATS_USER/NATS_PASSWORD, NATS_TOKEN,
NATS_NKEY_SEED_FILE, NATS_CREDS_FILE and NATS_TLS_{CA,CERT,KEY}_FILE (packages/platform
common-env.ts) and refuses two kinds at once.
*/}}

{{/* Where the NATS files are mounted in every Wirehook pod. */}}
{{- define "wirehook.natsFilesDir" -}}/etc/wirehook/nats{{- end -}}

{{/* The kind in use: nats.auth.type, or by default user with the bundled NATS and none with natsUrl. */}}
{{- define "wirehook.natsAuthType" -}}
{{- $type := .Values.nats.auth.type -}}
{{- if not $type -}}{{- $type = ternary "user" "none" (eq (include "wirehook.bundledNatsOn" .) "true") -}}{{- end -}}
{{- $type -}}
{{- end -}}

{{/* "true" when nats.auth or nats.tls carry material as values (then in the Secret <fullname>-nats-client). */}}
{{- define "wirehook.natsValuesGiven" -}}
{{- $a := .Values.nats.auth -}}
{{- $t := .Values.nats.tls -}}
{{- if or $a.user $a.password $a.token $a.nkeySeed $a.creds $t.ca $t.cert $t.key -}}true{{- end -}}
{{- end -}}

{{/* "true" when nats.auth's kind-specific values are given. */}}
{{- define "wirehook.natsAuthValuesGiven" -}}
{{- $a := .Values.nats.auth -}}
{{- if or $a.password $a.token $a.nkeySeed $a.creds -}}true{{- end -}}
{{- end -}}

{{/* "true" when the chart generates the bundled NATS's credentials (<fullname>-nats-auth). */}}
{{- define "wirehook.natsAuthGenerated" -}}
{{- $type := include "wirehook.natsAuthType" . -}}
{{- if and (include "wirehook.bundledNatsOn" .) (has $type (list "user" "token")) (not .Values.nats.auth.existingSecret) (not (include "wirehook.natsAuthValuesGiven" .)) (not .Values.secrets.existingSecret) -}}true{{- end -}}
{{- end -}}

{{/*
The Secret of what nats.auth and nats.tls give as values: <fullname>-nats-client, or for the
migrate Job the copy made with it (a context with natsClientSecret: templates/migrate-job.yaml).
*/}}
{{- define "wirehook.natsClientSecretName" -}}
{{- default (printf "%s-nats-client" (include "wirehook.fullname" .)) .natsClientSecret -}}
{{- end -}}

{{/* What that Secret holds (the data: block's lines). */}}
{{- define "wirehook.natsClientData" -}}
{{- $a := .Values.nats.auth -}}
{{- $t := .Values.nats.tls -}}
{{- if $a.password }}
NATS_USER: {{ $a.user | b64enc }}
NATS_PASSWORD: {{ $a.password | b64enc }}
{{- end }}
{{- with $a.token }}
NATS_TOKEN: {{ . | b64enc }}
{{- end }}
{{- with $a.nkeySeed }}
user.nk: {{ . | b64enc }}
{{- end }}
{{- with $a.creds }}
user.creds: {{ . | b64enc }}
{{- end }}
{{- with $t.ca }}
ca.crt: {{ . | b64enc }}
{{- end }}
{{- with $t.cert }}
tls.crt: {{ . | b64enc }}
{{- end }}
{{- with $t.key }}
tls.key: {{ . | b64enc }}
{{- end }}
{{- end -}}

{{/* The Secret holding the credentials of the kind in use; empty for none. */}}
{{- define "wirehook.natsAuthSecret" -}}
{{- $type := include "wirehook.natsAuthType" . -}}
{{- $fullname := include "wirehook.fullname" . -}}
{{- if eq $type "none" -}}
{{- else if .Values.nats.auth.existingSecret -}}{{ .Values.nats.auth.existingSecret }}
{{- else if include "wirehook.natsAuthValuesGiven" . -}}{{ include "wirehook.natsClientSecretName" . }}
{{- else if and (has $type (list "user" "token")) .Values.secrets.existingSecret -}}{{ .Values.secrets.existingSecret }}
{{- else if include "wirehook.natsAuthGenerated" . -}}{{ printf "%s-nats-auth" $fullname }}
{{- end -}}
{{- end -}}

{{/* The Secret holding the TLS files, and which keys: { name, ca, cert, key } (YAML), or nothing. */}}
{{- define "wirehook.natsTls" -}}
{{- $t := .Values.nats.tls -}}
{{- if $t.existingSecret -}}
{{ toYaml (dict "name" $t.existingSecret "ca" $t.existingSecretKeys.ca "cert" $t.existingSecretKeys.cert "key" $t.existingSecretKeys.key) }}
{{- else if or $t.ca $t.cert $t.key -}}
{{ toYaml (dict "name" (include "wirehook.natsClientSecretName" .) "ca" (ternary "ca.crt" "" (not (empty $t.ca))) "cert" (ternary "tls.crt" "" (not (empty $t.cert))) "key" (ternary "tls.key" "" (not (empty $t.key)))) }}
{{- end -}}
{{- end -}}

{{/* "true" when natsUrl carries credentials (user info before the host). */}}
{{- define "wirehook.natsUrlHasCredentials" -}}
{{- if and .Values.natsUrl (regexMatch "^[a-z]+://[^/]*@" .Values.natsUrl) -}}true{{- end -}}
{{- end -}}

{{/* Refuses a nats.auth / nats.tls combination the application or the bundled NATS could not use. */}}
{{- define "wirehook.natsAuthCheck" -}}
{{- $a := .Values.nats.auth -}}
{{- $t := .Values.nats.tls -}}
{{- $type := include "wirehook.natsAuthType" . -}}
{{- $bundled := eq (include "wirehook.bundledNatsOn" .) "true" -}}
{{- if and $bundled (has $type (list "nkey" "creds")) -}}
{{- fail (printf "nats.auth.type=%s is for an external NATS (natsUrl): the bundled NATS takes none, user or token" $type) -}}
{{- end -}}
{{- if and $bundled (or $t.ca $t.cert $t.key $t.existingSecret) -}}
{{- fail "nats.tls is for an external NATS (natsUrl): the bundled NATS is reached inside the cluster, without TLS" -}}
{{- end -}}
{{- if and (include "wirehook.natsUrlHasCredentials" .) (ne $type "none") -}}
{{- fail (printf "natsUrl carries credentials (user info before @) and nats.auth.type is %s: Wirehook takes one way of authenticating; leave nats.auth.type empty or move them into nats.auth" $type) -}}
{{- end -}}
{{- $given := dict "user" (or $a.user $a.password) "token" $a.token "nkey" $a.nkeySeed "creds" $a.creds -}}
{{- range $kind, $value := $given -}}
{{- if and $value (ne $kind $type) -}}
{{- fail (printf "nats.auth has %s credentials but nats.auth.type is %s: set nats.auth.type=%s, or remove them" $kind $type $kind) -}}
{{- end -}}
{{- end -}}
{{- if and $a.existingSecret (include "wirehook.natsAuthValuesGiven" .) -}}
{{- fail "nats.auth.existingSecret and credentials in nats.auth values are set together: keep one" -}}
{{- end -}}
{{- if and (eq $type "user") (or $a.user $a.password) (not (and $a.user $a.password)) -}}
{{- fail "nats.auth.type=user needs both nats.auth.user and nats.auth.password" -}}
{{- end -}}
{{- if and (ne $type "none") (not (include "wirehook.natsAuthSecret" .)) -}}
{{- $keys := dict "user" "NATS_USER and NATS_PASSWORD" "token" "NATS_TOKEN" "nkey" "user.nk" "creds" "user.creds" -}}
{{- $value := dict "user" "nats.auth.user and nats.auth.password" "token" "nats.auth.token" "nkey" "nats.auth.nkeySeed" "creds" "nats.auth.creds" -}}
{{- fail (printf "nats.auth.type=%s needs its credentials: %s, or nats.auth.existingSecret (a Secret with %s)" $type (index $value $type) (index $keys $type)) -}}
{{- end -}}
{{- if and $t.existingSecret (or $t.ca $t.cert $t.key) -}}
{{- fail "nats.tls.existingSecret and PEM in nats.tls.ca/cert/key are set together: keep one" -}}
{{- end -}}
{{- with include "wirehook.natsTls" . | fromYaml -}}
{{- if ne (empty .cert) (empty .key) -}}
{{- fail "nats.tls: a client certificate needs both the certificate and its key (cert and key, or existingSecretKeys.cert and .key)" -}}
{{- end -}}
{{- end -}}
{{- if $bundled -}}
{{- /* The bundled nats-server reads these from its environment as configuration values (a number, true or a # would not be a password). */ -}}
{{- range $name, $value := dict "nats.auth.user" $a.user "nats.auth.password" $a.password "nats.auth.token" $a.token -}}
{{- if and $value (or (not (regexMatch "^[A-Za-z][A-Za-z0-9._-]*$" $value)) (has (lower $value) (list "true" "false" "yes" "no" "on" "off"))) -}}
{{- fail (printf "%s: the bundled NATS reads it as a configuration value: letters, digits, '.', '-' and '_', starting with a letter" $name) -}}
{{- end -}}
{{- if and $value (ne $name "nats.auth.user") (lt (len $value) 8) -}}
{{- fail (printf "%s: at least 8 characters" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The NATS variables of every Wirehook pod (besides NATS_URL and NATS_PREFIX, in the ConfigMap or the Secret). */}}
{{- define "wirehook.natsClientEnv" -}}
{{- $type := include "wirehook.natsAuthType" . -}}
{{- $secret := include "wirehook.natsAuthSecret" . -}}
{{- $dir := include "wirehook.natsFilesDir" . -}}
{{- if eq $type "user" }}
- name: NATS_USER
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: NATS_USER } }
- name: NATS_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: NATS_PASSWORD } }
{{- else if eq $type "token" }}
- name: NATS_TOKEN
  valueFrom: { secretKeyRef: { name: {{ $secret }}, key: NATS_TOKEN } }
{{- else if eq $type "nkey" }}
- name: NATS_NKEY_SEED_FILE
  value: {{ printf "%s/user.nk" $dir | quote }}
{{- else if eq $type "creds" }}
- name: NATS_CREDS_FILE
  value: {{ printf "%s/user.creds" $dir | quote }}
{{- end }}
{{- with include "wirehook.natsTls" . | fromYaml }}
{{- if .ca }}
- name: NATS_TLS_CA_FILE
  value: {{ printf "%s/ca.crt" $dir | quote }}
{{- end }}
{{- if .cert }}
- name: NATS_TLS_CERT_FILE
  value: {{ printf "%s/tls.crt" $dir | quote }}
- name: NATS_TLS_KEY_FILE
  value: {{ printf "%s/tls.key" $dir | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The projected volume of the NATS files (nkey seed, .creds, TLS), or nothing when there are none. */}}
{{- define "wirehook.natsClientVolume" -}}
{{- $type := include "wirehook.natsAuthType" . -}}
{{- $sources := list -}}
{{- if has $type (list "nkey" "creds") -}}
{{- $file := ternary "user.nk" "user.creds" (eq $type "nkey") -}}
{{- $sources = append $sources (dict "secret" (dict "name" (include "wirehook.natsAuthSecret" .) "items" (list (dict "key" $file "path" $file)))) -}}
{{- end -}}
{{- with include "wirehook.natsTls" . | fromYaml -}}
{{- $items := list -}}
{{- if .ca }}{{ $items = append $items (dict "key" .ca "path" "ca.crt") }}{{ end -}}
{{- if .cert }}{{ $items = append (append $items (dict "key" .cert "path" "tls.crt")) (dict "key" .key "path" "tls.key") }}{{ end -}}
{{- if $items }}{{ $sources = append $sources (dict "secret" (dict "name" .name "items" $items)) }}{{ end -}}
{{- end -}}
{{- if $sources -}}
- name: nats-client
  projected:
    # Readable by the pod's group (fsGroup) only; updated in place when the Secret changes
    # (the application reads the seed and creds again at every reconnect).
    defaultMode: 0440
    sources:
      {{- toYaml $sources | nindent 6 }}
{{- end -}}
{{- end -}}

{{/* Its mount, when there is a volume. */}}
{{- define "wirehook.natsClientVolumeMount" -}}
{{- if include "wirehook.natsClientVolume" . -}}
- name: nats-client
  mountPath: {{ include "wirehook.natsFilesDir" . }}
  readOnly: true
{{- end -}}
{{- end -}}
