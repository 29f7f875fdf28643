#!/usr/bin/env bash
# Builds kinformer-realserver-clientgo (main.go beside this script), the client-go 0.36 side of
# the real-server benchmark, from the Go toolchain and Go sources that
# informer-testing/apiserver/build.sh unpacks from Debian (golang-1.26-go,
# golang-k8s-client-go-dev and their closure). GOPATH mode, network off, as that script builds.
#
# It runs informer-testing/apiserver/build.sh first (a second run of it only checks its cache),
# then builds into ${KINFORMER_CACHE:-$HOME/.cache/kinformer}/realserver-bench/<key>/, where <key>
# hashes main.go and the private root's package manifest; a build that exists is reused.
#
# Usage: build.sh     the last line printed is the path of the binary
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${KINFORMER_CACHE:-$HOME/.cache/kinformer}"

say() { printf 'realserver-clientgo/build.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

"$repo/informer-testing/apiserver/build.sh" >/dev/null \
  || die "informer-testing/apiserver/build.sh failed (see above): no Go toolchain or sources"

# The private root that script keeps: exactly one root-<key> with its .complete marker.
roots=("$cache"/apiserver/root-*/.complete)
[[ -e ${roots[0]} ]] || die "no complete $cache/apiserver/root-*: informer-testing/apiserver/build.sh left none"
((${#roots[@]} == 1)) || die "more than one private root in $cache/apiserver: ${roots[*]%/.complete}"
root="${roots[0]%/.complete}"
goroot="$root/usr/lib/go-1.26"
[[ -x $goroot/bin/go ]] || die "$goroot/bin/go is missing"
[[ -d $root/usr/share/gocode/src/k8s.io/client-go ]] \
  || die "$root has no k8s.io/client-go sources (golang-k8s-client-go-dev)"

key=$( (cat "$root/.manifest" "$here/main.go" "$here/build.sh") | sha256sum | cut -c1-16)
out="$cache/realserver-bench/$key"
bin="$out/kinformer-realserver-clientgo"
if [[ ! -x $bin ]]; then
  say "building kinformer-realserver-clientgo with $goroot"
  gopath="$out/gopath"
  rm -rf "$out" && mkdir -p "$gopath/src/kinformer.io/realserver-clientgo"
  cp "$here/main.go" "$gopath/src/kinformer.io/realserver-clientgo/"
  (cd "$gopath/src/kinformer.io" && env GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local \
    GOFLAGS= CGO_ENABLED=0 GOROOT="$goroot" GOPATH="$gopath:$root/usr/share/gocode" \
    GOCACHE="$cache/apiserver/gocache" GOTELEMETRY=off PATH="$goroot/bin:$PATH" \
    go build -trimpath -ldflags "-s -w" -o "$bin.tmp" ./realserver-clientgo) \
    2>"$out/build.log" || { cat "$out/build.log" >&2; die "go build failed"; }
  mv "$bin.tmp" "$bin"
  rm -rf "$gopath"
fi
# Builds of other sources are not needed again.
for old in "$cache"/realserver-bench/*; do
  [[ -e $old && $old != "$out" ]] && rm -rf "$old"
done
say "ready: $bin"
echo "$bin"
