#!/bin/sh
# Regenerates src/main/java/org/apache/storm/generated from storm.thrift with the Apache
# Thrift compiler (Debian: apt-get install thrift-compiler; 0.17.0 is what postprocess.py is
# tuned to). The generated sources are committed, so builds and CI need no compiler.
#
#   regenerate.sh            # storm.thrift -> Java
#   regenerate.sh --extract  # first re-extract storm.thrift from target/api-check/storm-client.jar
#                            # (needs storm-shaded-deps 2.8.3 in ~/.m2), e.g. after a Storm upgrade
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shim=$(cd "$here/../../.." && pwd)
out="$shim/src/main/java/org/apache/storm/generated"

if [ "${1:-}" = "--extract" ]; then
  java "$here/ExtractIdl.java" "$shim/target/api-check/storm-client.jar" \
    "$HOME/.m2/repository/org/apache/storm/storm-shaded-deps/2.8.3/storm-shaded-deps-2.8.3.jar" \
    "$here/storm.thrift"
fi

version=$(thrift --version | awk '{print $3}')
if [ "$version" != "0.17.0" ]; then
  echo "warning: thrift $version; postprocess.py was written against 0.17.0's output" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# beans: private fields, void setters; nocamel: get_x/set_x accessors (Storm's shapes).
thrift --gen java:beans,nocamel,generated_annotations=suppress -out "$tmp" "$here/storm.thrift"
python3 "$here/postprocess.py" "$tmp"
rm -f "$out"/*.java
cp "$tmp"/org/apache/storm/generated/*.java "$out"/
echo "regenerated $(ls "$out" | wc -l) files in $out"
