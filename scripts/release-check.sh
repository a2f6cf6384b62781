#!/usr/bin/env bash
# The parts of .github/workflows/release.yml that can run anywhere, one subcommand each, so
# test/scripts/release-check.test.ts dry-runs them on a machine with no registry:
#
#   version TAG [CHART_DIR]
#       TAG must be v<appVersion> of CHART_DIR/Chart.yaml (default charts/wirehook). Prints
#       APP_VERSION=… and CHART_VERSION=… lines (the workflow appends them to $GITHUB_ENV).
#   unpublished CHART_REF CHART_VERSION IMAGE_REF
#       Refuses when the chart version or the image tag is already in the registry. The lookups
#       are $CHART_LOOKUP CHART_REF --version CHART_VERSION (default `helm show chart`) and
#       $IMAGE_LOOKUP IMAGE_REF (default `docker buildx imagetools inspect`). A lookup that
#       fails for any reason other than "not found" (denied, network) also refuses: "cannot
#       tell" must never read as "free to push".
#   package-chart CHART_DIR IMAGE_REPOSITORY DIGEST OUT_DIR
#       Packages a copy of the chart whose default image is IMAGE_REPOSITORY:<appVersion>@DIGEST
#       (the chart renders repository:tag, and "<version>@sha256:…" is a valid tag value there),
#       renders the packaged .tgz and checks every Wirehook image in it is that reference.
#       Prints the .tgz's path. The checkout's chart is never changed.
#
# Every refusal is one ::error:: line on stderr (GitHub shows it on the run) and exit 1.
set -euo pipefail

fail() {
  echo "::error::$*" >&2
  exit 1
}

# A top-level scalar of a Chart.yaml (version, appVersion), quotes removed.
chart_field() {
  sed -nE "s/^$2: *\"?([^\"#]*[^\" #])\"? *(#.*)?$/\1/p" "$1/Chart.yaml" | head -1
}

cmd_version() {
  local tag="${1:?version TAG [CHART_DIR]}" chart="${2:-charts/wirehook}" app version
  app="$(chart_field "$chart" appVersion)"
  version="$(chart_field "$chart" version)"
  [ -n "$app" ] && [ -n "$version" ] || fail "$chart/Chart.yaml has no version or appVersion"
  [ "$tag" = "v$app" ] || fail "tag $tag does not match $chart/Chart.yaml appVersion $app: tag v$app, or change appVersion"
  echo "APP_VERSION=$app"
  echo "CHART_VERSION=$version"
}

# Whether a lookup's failure says the thing does not exist (registries word it differently:
# helm "…: not found", buildx "ERROR: …: not found", a new repository NAME_UNKNOWN).
says_absent() {
  grep -qiE 'not found|manifest unknown|name unknown|repository name not known' <<<"$1"
}

# Refuses when `what` exists, or when the lookup cannot tell.
must_be_absent() {
  local what="$1" out
  shift
  if out="$("$@" 2>&1)"; then
    fail "$what is already published: raise the version (Chart.yaml version / appVersion) and tag again; a published version is never replaced"
  fi
  local first
  first="$(head -1 <<<"$out")"
  says_absent "$out" || fail "could not tell whether $what is published ($*)${first:+: $first}"
}

cmd_unpublished() {
  local chart_ref="${1:?unpublished CHART_REF CHART_VERSION IMAGE_REF}" chart_version="${2:?}" image_ref="${3:?}"
  local chart_lookup image_lookup
  read -r -a chart_lookup <<<"${CHART_LOOKUP:-helm show chart}"
  read -r -a image_lookup <<<"${IMAGE_LOOKUP:-docker buildx imagetools inspect}"
  must_be_absent "chart $chart_ref $chart_version" "${chart_lookup[@]}" "$chart_ref" --version "$chart_version"
  must_be_absent "image $image_ref" "${image_lookup[@]}" "$image_ref"
  echo "chart $chart_ref $chart_version and image $image_ref are not published yet" >&2
}

cmd_package_chart() {
  local chart="${1:?package-chart CHART_DIR IMAGE_REPOSITORY DIGEST OUT_DIR}" repository="${2:?}" digest="${3:?}" out="${4:?}"
  [[ "$digest" =~ ^sha256:[0-9a-f]{64}$ ]] || fail "image digest '$digest' is not sha256:<64 hex digits>"
  [[ "$repository" =~ ^[a-z0-9./_-]+$ ]] || fail "image repository '$repository' is not a lower-case registry path"
  local app work name ref
  app="$(chart_field "$chart" appVersion)"
  name="$(basename "$chart")"
  ref="$repository:$app@$digest"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  cp -R "$chart" "$work/$name"
  # The repository in values (image: block's own `repository:`); the digest as the chart's
  # annotation wirehook.dev/image-digest, which the templates use for the appVersion's image
  # only: a user's image.digest replaces it, and a user's image.tag is pulled by that tag.
  sed -i -E "/^image:/,/^[^ #]/{
    s|^(  repository:).*|\1 $repository|
  }" "$work/$name/values.yaml"
  grep -q '^annotations:' "$work/$name/Chart.yaml" && fail "Chart.yaml of $chart has annotations: add wirehook.dev/image-digest to them here"
  printf 'annotations:\n  wirehook.dev/image-digest: "%s"\n' "$digest" >> "$work/$name/Chart.yaml"
  mkdir -p "$out"
  local packaged
  packaged="$(helm package "$work/$name" --destination "$out" | sed -nE 's/^Successfully packaged chart and saved it to: //p')"
  [ -f "$packaged" ] || fail "helm package wrote no chart for $chart"
  # Rendered from the .tgz that will be pushed: the images it installs by default.
  local images
  images="$(helm template release-check "$packaged" --set secrets.existingSecret=release-check --set networkPolicy.dns.lookupClusterIP=false |
    sed -nE 's/^ *(- )?image: *"?([^" ]+)"?.*$/\2/p' | grep -F "$repository" | sort -u || true)"
  [ -n "$images" ] || fail "the packaged chart renders no $repository image"
  [ "$images" = "$ref" ] || fail "the packaged chart renders $(tr '\n' ' ' <<<"$images")instead of $ref"
  echo "$packaged"
}

case "${1:-}" in
  version) shift; cmd_version "$@" ;;
  unpublished) shift; cmd_unpublished "$@" ;;
  package-chart) shift; cmd_package_chart "$@" ;;
  *) echo "usage: $0 version TAG [CHART_DIR] | unpublished CHART_REF CHART_VERSION IMAGE_REF | package-chart CHART_DIR IMAGE_REPOSITORY DIGEST OUT_DIR" >&2; exit 2 ;;
esac
