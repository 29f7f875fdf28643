#!/usr/bin/env bash
# Generates the OpenAPI definitions the embedded API server serves,
# src/main/resources/io/kinformer/testing/openapi-definitions.json.gz, from the Go sources of
# k8s.io/api, k8s.io/apimachinery and k8s.io/client-go 0.36.4 that ../apiserver/build.sh unpacks
# from Debian's packages. The generator (main.go here) is built in GOPATH mode with the network
# off, like the test API server.
#
# Either way, crosscheck/main.go then compares the result with the definitions kube-openapi's
# own generator wrote for the types k8s.io/apiextensions-apiserver publishes (meta/v1 and others).
#
# Usage: gen.sh           regenerate the resource
#        gen.sh --check   regenerate into a temporary file and fail unless it is byte-identical
#                         to the committed resource
# Env:   KINFORMER_CACHE  the cache root (default $HOME/.cache/kinformer), as for build.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
resource="$here/../src/main/resources/io/kinformer/testing/openapi-definitions.json.gz"
cache="${KINFORMER_CACHE:-$HOME/.cache/kinformer}/apiserver"
say() { printf 'gen.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) die "unknown argument '$1' (usage: gen.sh [--check])" ;;
esac

"$here/../apiserver/build.sh" >/dev/null
# build.sh keeps exactly one unpacked root, the one it built from.
roots=("$cache"/root-*)
((${#roots[@]} == 1)) && [[ -e ${roots[0]}/.complete ]] \
  || die "expected one complete $cache/root-* after build.sh, found: ${roots[*]}"
root=${roots[0]}
# main.go's sourceVersion names the release; a root with another one would generate other bytes.
want=$(sed -n 's/^const sourceVersion = "k8s.io\/api v\(.*\)"$/\1/p' "$here/main.go")
have=$(sed -n 's/^golang-k8s-api-dev=\([^-+]*\).*/\1/p' "$root/.manifest")
[[ -n $want && $have == "$want" ]] \
  || die "main.go generates from k8s.io/api $want but $root has golang-k8s-api-dev $have:" \
    "update sourceVersion in main.go and regenerate"
goroot="$root/usr/lib/go-1.26"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gopath/src/kinformer.io/openapi-gen/crosscheck"
cp "$here/main.go" "$work/gopath/src/kinformer.io/openapi-gen/"
cp "$here/crosscheck/main.go" "$work/gopath/src/kinformer.io/openapi-gen/crosscheck/"
(cd "$work/gopath/src/kinformer.io/openapi-gen" && env GO111MODULE=off GOPROXY=off \
  GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=0 GOROOT="$goroot" \
  GOPATH="$work/gopath:$root/usr/share/gocode" GOCACHE="$cache/gocache" GOTELEMETRY=off \
  PATH="$goroot/bin:$PATH" sh -c 'go build -trimpath -o "$1/openapi-gen" . &&
    go build -trimpath -o "$1/crosscheck" ./crosscheck' build "$work") \
  || die "go build of the generator failed"

out="$resource"
((check)) && out="$work/openapi-definitions.json.gz"
"$work/openapi-gen" -src "$root/usr/share/gocode/src" -out "$out"
# The definitions kube-openapi's generator wrote for the same types must be equal to ours.
"$work/crosscheck" "$out" || die "the generated definitions differ from kube-openapi's (above)"
if ((check)); then
  cmp -s "$out" "$resource" || die "$resource is not what the generator writes: run $0 and commit"
  say "the committed definitions are up to date"
else
  say "wrote $resource"
fi
