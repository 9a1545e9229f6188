{{/*
Helpers of the demo chart. `rkb edit --plugins helm` writes this file once and keeps your edits.
*/}}

{{/*
The chart's name, or nameOverride.
*/}}
{{- define "demo.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: fullnameOverride, else the release name when it contains the chart's name
(a release named demo gets the names `make deploy` gives), else "<release>-<chart>".
*/}}
{{- define "demo.fullname" -}}
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
An object's name: the prefix, a dash and the suffix kustomize's namePrefix was put before (e.g. "controller-manager"),
at most 63 characters with the suffix kept whole. Called with (dict "suffix" "..." "context" $).
*/}}
{{- define "demo.resourceName" -}}
{{- $prefix := include "demo.fullname" .context }}
{{- $room := sub 62 (len .suffix) | int }}
{{- printf "%s-%s" ($prefix | trunc $room | trimSuffix "-") .suffix | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The chart label Helm's conventions ask for.
*/}}
{{- define "demo.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}
