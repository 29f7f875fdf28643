#!/usr/bin/env bash
# Runs the real-server benchmark (io.kinformer.benchmarks.realserver.RealServerBenchmark):
# kinformer against client-go 0.36 on Kubernetes' own API server machinery. See
# docs/benchmarks.md, "Real API server".
#
# It builds what is missing: the API server, etcd and the client-go program (through
# realserver-clientgo/build.sh, which runs informer-testing/apiserver/build.sh), and
# target/benchmarks.jar when it is absent or older than a source file. Every argument is passed
# on, for example: realserver.sh --pods=20000 --rounds=3 --out=target/realserver-20000
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
jar="$here/target/benchmarks.jar"

die() { printf 'realserver.sh: error: %s\n' "$*" >&2; exit 1; }

clientgo=$("$here/realserver-clientgo/build.sh" | tail -1) \
  || die "cannot build the real-server binaries (the API server and the client-go program); \
informer-testing/apiserver/build.sh needs a Debian-based machine and Debian's archive once (see \
informer-testing/apiserver/README.md)"
[[ -x $clientgo ]] || die "realserver-clientgo/build.sh printed no binary ($clientgo)"

if [[ ! -f $jar || -n $(find "$repo" -path '*/src/main/*' -newer "$jar" -print -quit) ]]; then
  printf 'realserver.sh: building %s\n' "$jar" >&2
  (cd "$repo" && flock /tmp/kinformer-build.lock mvn -o -B -q -Dstyle.color=never -Pbenchmarks package -DskipTests \
    -Djapicmp.skip=true -pl informer-benchmarks -am) || die "building benchmarks.jar failed"
fi

cd "$repo"
exec java -cp "$jar" io.kinformer.benchmarks.realserver.RealServerBenchmark \
  --clientgo="$clientgo" "$@"
