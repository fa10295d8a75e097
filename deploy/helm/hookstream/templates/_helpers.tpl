{{/* Names and labels shared by every template. */}}

{{- define "hookstream.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "hookstream.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The labels that select one service's pods: call with (dict "root" $ "name" $name). */}}
{{- define "hookstream.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "hookstream.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/*
What each service reads beyond the shared settings (its src/config.ts): the keyrings, the
state store, the SSRF allow list, the document store, the delivery log's own store.
*/}}
{{- define "hookstream.needs" -}}
ingress: [apiKeyPeppers, stateStore]
policy-status-consumer: []
callback-sender: [secretsKeys, stateStore, ssrf, partners]
document-fetcher: [stateStore, ssrf, partners, documents]
delivery-log: [apiKeyPeppers, portalTokenKeys, secretsKeys, deliveryLogStore, ssrf]
{{- end -}}

{{/* One service's needs as a list: call with (dict "root" $ "name" $name). */}}
{{- define "hookstream.needsOf" -}}
{{- $all := include "hookstream.needs" .root | fromYaml -}}
{{- toJson (dict "needs" (get $all .name)) -}}
{{- end -}}

{{/* The Kafka and registry settings every process (services and the topics job) reads. */}}
{{- define "hookstream.kafkaEnv" -}}
- name: KAFKA_BROKERS
  value: {{ required "kafka.brokers is required (host:port, comma-separated)" .Values.kafka.brokers | quote }}
- name: SCHEMA_REGISTRY_URL
  value: {{ required "schemaRegistry.url is required" .Values.schemaRegistry.url | quote }}
- name: TOPIC_PREFIX
  value: {{ .Values.kafka.topicPrefix | quote }}
- name: KAFKA_SECURITY_PROTOCOL
  value: {{ .Values.kafka.securityProtocol | quote }}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol }}
- name: KAFKA_SASL_MECHANISM
  value: {{ required "kafka.sasl.mechanism is required with SASL" .Values.kafka.sasl.mechanism | quote }}
- name: KAFKA_SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ required "kafka.sasl.existingSecret is required with SASL" .Values.kafka.sasl.existingSecret }}
      key: {{ .Values.kafka.sasl.usernameKey }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.kafka.sasl.existingSecret }}
      key: {{ .Values.kafka.sasl.passwordKey }}
{{- end }}
{{- if and (hasSuffix "SSL" .Values.kafka.securityProtocol) .Values.kafka.tls.caSecret }}
- name: KAFKA_SSL_CA_FILE
  value: /etc/hookstream/kafka-ca/{{ .Values.kafka.tls.caKey }}
{{- end }}
{{- end -}}

{{/* The Kafka CA volume and its mount, when one is named. */}}
{{- define "hookstream.kafkaCaOn" -}}
{{- if and (hasSuffix "SSL" .Values.kafka.securityProtocol) .Values.kafka.tls.caSecret }}true{{ end -}}
{{- end -}}

{{- define "hookstream.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "%s is required: the existing Secret holding %s" .what .name) .secret }}
      key: {{ .key }}
{{- end -}}

{{- define "hookstream.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}
