#!/usr/bin/env bash
# Regenerates the protobuf schema of the built-in types (a resource of informer-proto) and the
# differential fixtures (a test resource) from the Go sources of k8s.io/api, k8s.io/apimachinery
# and k8s.io/client-go that informer-testing/apiserver/build.sh unpacks from Debian. GOPATH mode,
# network off, as that build.
#
# Usage: gen.sh           write both files
#        gen.sh --check   fail if either file differs from what would be written
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
module="$(cd "$here/.." && pwd)"
repo="$(cd "$module/.." && pwd)"
cache="${KINFORMER_CACHE:-$HOME/.cache/kinformer}/apiserver"
schema="$module/src/main/resources/io/kinformer/proto/internal/schema.json.gz"
fixtures="$module/src/test/resources/io/kinformer/proto/internal/fixtures.json.gz"

check=()
case "${1:-}" in
  --check) check=(-check) ;;
  "") ;;
  *) echo "usage: gen.sh [--check]" >&2; exit 2 ;;
esac

"$repo/informer-testing/apiserver/build.sh" >/dev/null
roots=("$cache"/root-*)
[[ ${#roots[@]} == 1 && -e ${roots[0]}/.complete ]] \
  || { echo "gen.sh: expected one complete root-* under $cache" >&2; exit 1; }
root=${roots[0]}
goroot="$root/usr/lib/go-1.26"

gopath="$(mktemp -d)"
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/kinformer.io/proto-schema" "$(dirname "$schema")" "$(dirname "$fixtures")"
cp "$here"/*.go "$gopath/src/kinformer.io/proto-schema/"
(cd "$gopath/src/kinformer.io/proto-schema" && env GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local \
  GOFLAGS= CGO_ENABLED=0 GOROOT="$goroot" GOPATH="$gopath:$root/usr/share/gocode" \
  GOCACHE="$cache/gocache" GOTELEMETRY=off PATH="$goroot/bin:$PATH" \
  go run . -src "$root/usr/share/gocode/src" -schema "$schema" -fixtures "$fixtures" "${check[@]}")
