#!/usr/bin/env bash
# Copies the Apache Kafka broker jars from Maven Central into a cache folder keyed by
# version, once, with Maven (and Java) from Debian's packages when missing. Prints that folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../tools/lib.sh"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
libs="$KRT_TOOLS_DIR/kafka-$version/libs"
# The broker runs on Java 17; both come from Debian when missing (as root).
debian_tool java openjdk-17-jre-headless >/dev/null
if [ ! -f "$libs/.complete" ]; then
  debian_tool mvn maven >/dev/null
  log "fetching Apache Kafka $version jars from Maven Central"
  rm -rf "$libs"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs" >&2 \
    || die "Maven could not fetch org.apache.kafka:kafka_2.13:$version"
  touch "$libs/.complete"
fi
echo "$libs"
