#!/usr/bin/env bash
# Prints the path of a kubectl for the kubectl tests of informer-testing (KubectlTest).
#
# KINFORMER_KUBECTL, when set, wins; then a kubectl on PATH; otherwise Debian sid's `kubectl`
# package (1.36) is fetched with a private apt configuration and unpacked with dpkg-deb under
# ${KINFORMER_CACHE:-$HOME/.cache/kinformer}/kubectl, installing nothing system-wide. A second run
# reuses the unpacked binary. The last line printed is the kubectl's path.
#
# Env: KINFORMER_KUBECTL, KINFORMER_CACHE, KINFORMER_DEBIAN_MIRROR (default http://deb.debian.org/debian)
set -euo pipefail

say() { printf 'kubectl.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

if [[ -n ${KINFORMER_KUBECTL:-} ]]; then
  [[ -x $KINFORMER_KUBECTL ]] || die "KINFORMER_KUBECTL=$KINFORMER_KUBECTL is not an executable"
  echo "$KINFORMER_KUBECTL"
  exit 0
fi
if found=$(command -v kubectl); then
  echo "$found"
  exit 0
fi

cache="${KINFORMER_CACHE:-$HOME/.cache/kinformer}/kubectl"
mirror="${KINFORMER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
root="$cache/root"
if [[ -x $root/usr/bin/kubectl ]]; then
  echo "$root/usr/bin/kubectl"
  exit 0
fi

for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || die "no kubectl on PATH and no '$tool' to fetch one (set KINFORMER_KUBECTL)"
done
[[ -r $keyring ]] || die "$keyring is missing: install the debian-archive-keyring package"

apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc"
: >"$apt_dir/status.empty"
echo "deb [signed-by=$keyring] $mirror sid main" >"$apt_dir/etc/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/etc/none"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status.empty"
  -o "Dir::Cache=$apt_dir"
  -o "Dir::Cache::archives=$apt_dir/archives"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
  -o "Acquire::Languages=none"
)
say "fetching Debian sid's kubectl package into $cache"
apt-get -q "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 \
  || { cat "$apt_dir/update.log" >&2; die "apt-get update of the private sid lists failed"; }
(cd "$apt_dir/archives" && apt-get -q "${apt_opts[@]}" download kubectl >"$apt_dir/download.log" 2>&1) \
  || { cat "$apt_dir/download.log" >&2; die "downloading the kubectl package failed"; }
deb=$(ls -t "$apt_dir"/archives/kubectl_*.deb | head -1)
rm -rf "$root.tmp"
dpkg-deb -x "$deb" "$root.tmp"
[[ -x $root.tmp/usr/bin/kubectl ]] || die "$deb holds no usr/bin/kubectl"
rm -rf "$root"
mv "$root.tmp" "$root"
echo "$root/usr/bin/kubectl"
