#!/usr/bin/env bash
# Builds the Spring Kafka application of the mixed-fleet broker test (test/spring: spring-kafka
# from Maven Central, a plain application context) once per version of its sources, into the
# tools cache, with Maven and a JDK from Debian's packages when missing. Prints the folder that
# holds its classes/ and libs/; run it with java -cp "$dir/classes:$dir/libs/*" krt.spring.SpringFleetApp.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
project="$(cd "$here/../../test/spring" && pwd)"
debian_tool javac openjdk-17-jdk-headless >/dev/null
debian_tool mvn maven >/dev/null
# Keyed by the sources' content: an edited listener is built again, an unchanged one never.
key="$(cd "$project" && find pom.xml src -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
out="$KRT_TOOLS_DIR/spring-app-$key"
if [ ! -f "$out/.complete" ]; then
  log "building the Spring Kafka test application (test/spring) with Maven"
  rm -rf "$out"
  mkdir -p "$out"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cp -r "$project/pom.xml" "$project/src" "$work/"
  (cd "$work" && mvn -q -B compile dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$out/libs") >&2 \
    || die "Maven could not build test/spring (spring-kafka and its dependencies come from Maven Central); see the output above"
  cp -r "$work/target/classes" "$out/classes"
  touch "$out/.complete"
fi
echo "$out"
