#!/usr/bin/env bash
# Builds the test API server in this directory (main.go) from Debian's packaged Go sources of
# k8s.io/apiserver, k8s.io/apiextensions-apiserver and their closure, and provides etcd.
#
# Nothing is installed system-wide: the .deb files are fetched with a private apt configuration
# (its own sources.list naming Debian sid, its own lists and archive cache) and unpacked with
# dpkg-deb into a private root. The build runs in GOPATH mode with the network off.
#
# Everything lands under ${KINFORMER_CACHE:-$HOME/.cache/kinformer}/apiserver:
#   apt/                 the private apt state (lists, downloaded .deb files)
#   root-<key>/          the unpacked packages; <key> hashes the package names and versions
#   gocache/             GOCACHE, kept between builds
#   bin-<key>/           kinformer-apiserver, kinformer-clientgo-informer (a client-go 0.36.4
#                        informer for differential tests), etcd and etcdctl; <key> also hashes
#                        the Go sources
#   current              a symlink to the newest bin-<key>
# A second run with the cache in place only checks it (the apt lists are refreshed at most once
# a day; KINFORMER_APT_REFRESH=1 forces it) and prints the binary directory.
#
# Usage: build.sh            build if needed; the last line printed is the binary directory
# Env:   KINFORMER_CACHE     the cache root (default $HOME/.cache/kinformer)
#        KINFORMER_DEBIAN_MIRROR   the Debian mirror (default http://deb.debian.org/debian)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${KINFORMER_CACHE:-$HOME/.cache/kinformer}/apiserver"
mirror="${KINFORMER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
version=v1.36.4

# The packages the server is built from; their dependency closure is added below.
go_pkg=golang-1.26-go
src_pkgs=(golang-k8s-apiserver-dev golang-k8s-apiextensions-apiserver-dev golang-k8s-api-dev
  golang-k8s-apimachinery-dev golang-k8s-client-go-dev golang-k8s-component-base-dev)
etcd_pkgs=(etcd-server etcd-client)

say() { printf 'build.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

for tool in apt-get apt-cache dpkg-deb sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' is not on PATH (a Debian-based machine is needed)"
done
[[ -r $keyring ]] || die "$keyring is missing: install the debian-archive-keyring package"

apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc"
: >"$apt_dir/status.empty"
cat >"$apt_dir/etc/sources.list" <<SRC
deb [signed-by=$keyring] $mirror sid main
SRC
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/etc/none"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status.empty"
  -o "Dir::Cache=$apt_dir"
  -o "Dir::Cache::archives=$apt_dir/archives"
  -o "Dir::Cache::pkgcache=$apt_dir/pkgcache.bin"
  -o "Dir::Cache::srcpkgcache=$apt_dir/srcpkgcache.bin"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
  -o "Acquire::Languages=none"
)

stamp="$apt_dir/lists/.updated"
if [[ ${KINFORMER_APT_REFRESH:-0} == 1 || ! -e $stamp || -n $(find "$stamp" -mmin +1440) ]]; then
  say "refreshing the private apt lists for Debian sid"
  apt-get -q "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 \
    || { cat "$apt_dir/update.log" >&2; die "apt-get update of the private sid lists failed"; }
  touch "$stamp"
fi

# Every top-level package must exist, or the closure below would silently miss it.
missing=()
for p in "$go_pkg" "${src_pkgs[@]}" "${etcd_pkgs[@]}"; do
  apt-cache "${apt_opts[@]}" show "$p" >/dev/null 2>&1 || missing+=("$p")
done
((${#missing[@]} == 0)) || die "package(s) not found in Debian sid: ${missing[*]}"

closure=$(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
  --no-conflicts --no-breaks --no-replaces --no-enhances --no-pre-depends "${src_pkgs[@]}" \
  | grep -E '^golang-.*-dev$' | sort -u)
pkgs=("$go_pkg" "golang-1.26-src" "${etcd_pkgs[@]}" $closure)

# name=version for every package; the hash of that list keys the private root.
manifest=$(apt-cache "${apt_opts[@]}" policy "${pkgs[@]}" | awk '
  /^[^ ]/ { sub(":$", "", $1); name = $1 }
  /Candidate:/ { print name "=" $2 }' | sort -u)
while read -r line; do
  [[ $line == *"=(none)" ]] && missing+=("${line%=*}")
done <<<"$manifest"
((${#missing[@]} == 0)) || die "package(s) with no installable version in Debian sid: ${missing[*]}"
root_key=$(sha256sum <<<"$manifest" | cut -c1-16)
root="$cache/root-$root_key"

if [[ ! -e $root/.complete ]]; then
  say "downloading ${#pkgs[@]} packages into $apt_dir/archives"
  (cd "$apt_dir/archives" && apt-get -q "${apt_opts[@]}" download $manifest) \
    >"$apt_dir/download.log" 2>&1 || {
      grep -E '^(E|W):' "$apt_dir/download.log" >&2 || tail -20 "$apt_dir/download.log" >&2
      die "apt-get download failed (see the lines above for the package)"
    }
  say "unpacking into $root"
  rm -rf "$root.tmp" && mkdir -p "$root.tmp"
  while read -r line; do
    name=${line%%=*} ver=${line#*=}
    deb=$(ls "$apt_dir/archives/${name}_${ver//:/%3a}_"*.deb 2>/dev/null | head -1)
    [[ -n $deb ]] || die "the downloaded .deb of $name $ver is missing from $apt_dir/archives"
    dpkg-deb -x "$deb" "$root.tmp"
  done <<<"$manifest"
  printf '%s\n' "$manifest" >"$root.tmp/.manifest"
  touch "$root.tmp/.complete"
  rm -rf "$root" && mv "$root.tmp" "$root"
fi

goroot="$root/usr/lib/go-1.26"
[[ -x $goroot/bin/go ]] || die "$goroot/bin/go is missing from the unpacked $go_pkg"
for b in etcd etcdctl; do
  [[ -x $root/usr/bin/$b ]] || die "/usr/bin/$b is missing from the unpacked etcd packages"
done

src_key=$( (printf '%s\n' "$manifest" "$version"
  cat "$here/main.go" "$here/clientgo-informer/main.go" "$here/build.sh") \
  | sha256sum | cut -c1-16)
bin="$cache/bin-$src_key"
if [[ ! -x $bin/kinformer-apiserver ]]; then
  say "building kinformer-apiserver $version (a cold build takes 5 to 10 minutes on 2 cores)"
  gopath="$cache/gopath-$src_key"
  rm -rf "$gopath" && mkdir -p "$gopath/src/kinformer.io/apiserver" "$bin.tmp"
  cp "$here/main.go" "$gopath/src/kinformer.io/apiserver/"
  mkdir -p "$gopath/src/kinformer.io/clientgo-informer"
  cp "$here/clientgo-informer/main.go" "$gopath/src/kinformer.io/clientgo-informer/"
  ldflags="-X k8s.io/component-base/version.gitVersion=$version"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean -s -w"
  # kinformer-apiserver, and beside it a client-go informer for differential tests.
  (cd "$gopath/src/kinformer.io" && env GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local \
    GOFLAGS= CGO_ENABLED=0 GOROOT="$goroot" GOPATH="$gopath:$root/usr/share/gocode" \
    GOCACHE="$cache/gocache" GOTELEMETRY=off PATH="$goroot/bin:$PATH" \
    sh -c 'go build -trimpath -ldflags "$1" -o "$2/kinformer-apiserver" ./apiserver &&
      go build -trimpath -ldflags "$1" -o "$2/kinformer-clientgo-informer" ./clientgo-informer' \
    build "$ldflags" "$bin.tmp") 2>"$cache/build.log" || {
      cat "$cache/build.log" >&2
      if grep -q 'cannot find package' "$cache/build.log"; then
        say "Go packages not found above: add the golang-*-dev package that ships each to src_pkgs"
      fi
      die "go build failed"
    }
  cp "$root/usr/bin/etcd" "$root/usr/bin/etcdctl" "$bin.tmp/"
  rm -rf "$bin" "$gopath" && mv "$bin.tmp" "$bin"
fi
ln -sfn "$(basename "$bin")" "$cache/current"
# Older binaries and private roots (other package versions or sources) are not needed again.
for old in "$cache"/bin-* "$cache"/gopath-* "$cache"/root-*; do
  [[ -e $old && $old != "$bin" && $old != "$root" ]] && rm -rf "$old"
done
say "ready: $bin"
echo "$bin"
