#!/usr/bin/env bash
# Rewrites the API baseline, api-baseline/<module>.jar for every published module: the class
# files of the module's API packages, compiled from the working tree. `mvn verify` compares each
# module's jar with its baseline (japicmp, see api-baseline/README.md) and fails on a change that
# breaks callers; run this script after such a change is decided on, and commit the jars with it.
#
# Usage: api-baseline/update.sh [extra Maven arguments, e.g. -o]
#
# A module's API packages are those its module-info.java exports to everyone (not `exports ...
# to ...`); a module without one has as API every package whose name has no `internal` segment.
# Resources and non-API packages are left out. The jars are stamped with a
# fixed time and list their entries in a fixed order, so the same classes give the same bytes.
set -euo pipefail

modules=(informer-core informer-client informer-testing informer-envtest
  informer-leaderelection informer-micrometer)

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for module in "${modules[@]}"; do
  [[ -f "$module/pom.xml" ]] || { echo "no module $module (update the list in $0)" >&2; exit 1; }
done

list=$(IFS=,; echo "${modules[*]}")
mvn -B -q "$@" -Denforcer.skip -Djapicmp.skip -pl "$list" -am compile

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

exports_of() { # module [qualified] -> its exported packages (qualified: those exported `to` some
  # modules only), one a line, as directory paths (a/b/c)
  local info="$1/src/main/java/module-info.java" to='[[:space:]]*'
  [[ ${2:-} == qualified ]] && to='[[:space:]]+to[[:space:]].*'
  # Strip comments, split into declarations, and take the `exports p` (or `exports p to m`).
  sed -e 's://.*$::' "$info" | tr '\n' ' ' | sed -e 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/::g' \
    | tr ';{}' '\n\n\n' \
    | sed -nE "s/^[[:space:]]*exports[[:space:]]+([A-Za-z0-9_.]+)$to\$/\\1/p" | tr . /
}

api_packages() { # module -> API package names, one a line, as directory paths (a/b/c)
  local module=$1 info="$1/src/main/java/module-info.java"
  if [[ -f "$info" ]]; then
    exports_of "$module"
  else
    (cd "$module/target/classes" && find . -name '*.class' ! -name module-info.class \
      -printf '%h\n' | sed 's:^\./::' | sort -u | grep -vE '(^|/)internal(/|$)' || true)
  fi
}

for module in "${modules[@]}"; do
  classes="$module/target/classes"
  out="$work/$module"
  mkdir -p "$out"
  packages=$(api_packages "$module")
  [[ -n "$packages" ]] || { echo "$module: no API package found" >&2; exit 1; }
  while read -r pkg; do
    [[ -d "$classes/$pkg" ]] || { echo "$module: exported package $pkg has no classes" >&2; exit 1; }
    mkdir -p "$out/$pkg"
    find "$classes/$pkg" -maxdepth 1 -name '*.class' -exec cp {} "$out/$pkg/" \;
  done <<< "$packages"
  # The descriptor too, so that the module's jar and its baseline differ only where the API does;
  # with it the packages it exports to some modules only, which japicmp leaves out as internal.
  if [[ -f "$classes/module-info.class" ]]; then
    cp "$classes/module-info.class" "$out/"
    while read -r pkg; do
      [[ -n $pkg ]] || continue
      mkdir -p "$out/$pkg"
      find "$classes/$pkg" -maxdepth 1 -name '*.class' -exec cp {} "$out/$pkg/" \;
    done <<< "$(exports_of "$module" qualified)"
  fi
  (cd "$out" && find . -name '*.class' | sed 's:^\./::' | LC_ALL=C sort > "$work/$module.list")
  rm -f "api-baseline/$module.jar"
  (cd "$out" && jar --create --no-manifest --date=2026-01-01T00:00:00Z \
    --file "$root/api-baseline/$module.jar" "@$work/$module.list")
  echo "api-baseline/$module.jar: $(wc -l < "$work/$module.list") classes in" \
    "$(wc -l <<< "$packages") packages"
done
