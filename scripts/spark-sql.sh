#!/usr/bin/env bash
# Runs Spark SQL on a local Spark (local[2]) with the Javelin catalog registered as `javelin`:
#   scripts/spark-sql.sh --warehouse DIR -e "CREATE TABLE javelin.t AS SELECT 1 AS x; SELECT * FROM javelin.t"
# Each statement's rows are printed as CSV with a header. Finds a JDK >= 22 and builds the spark module
# (Maven wrapper) on first use or when sources changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/jdk.sh"
javelin_find_jdk

cp_file="$root/spark/target/spark-classpath.txt"
stale=""
if [ ! -f "$cp_file" ] || [ ! -d "$root/spark/target/classes" ]; then
  stale="first use"
elif [ -n "$(find "$root" -path "$root/*/target" -prune -o \( -name '*.java' -o -name '*.proto' -o -name pom.xml \) \
           -newer "$cp_file" -print -quit 2>/dev/null)" ]; then
  stale="sources changed"
fi
if [ -n "$stale" ]; then
  echo "spark-sql: building ($stale)..." >&2
  log="$(mktemp)"
  if ! (cd "$root" && ./mvnw -B -ntp -q -DskipTests -pl spark -am install >"$log" 2>&1); then
    cat "$log" >&2; rm -f "$log"
    echo "spark-sql: build failed" >&2; exit 1
  fi
  rm -f "$log"
  touch "$cp_file"
fi

# Spark 4 on JDK 25 needs these opens; Javelin needs the vector module, native access and nio opens.
exec "$JAVA_HOME/bin/java" \
  --add-modules jdk.incubator.vector \
  --enable-native-access=ALL-UNNAMED \
  --sun-misc-unsafe-memory-access=allow \
  --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/java.lang=ALL-UNNAMED \
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED \
  --add-opens=java.base/java.io=ALL-UNNAMED \
  --add-opens=java.base/java.net=ALL-UNNAMED \
  --add-opens=java.base/java.util=ALL-UNNAMED \
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED \
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED \
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED \
  --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true \
  -Dlog4j2.configurationFile="$root/scripts/spark-sql-log4j2.properties" \
  -Xshare:auto ${JAVELIN_JAVA_OPTS:-} \
  -cp "$root/spark/target/classes:$(cat "$cp_file")" \
  io.javelin.spark.cli.SparkSql "$@"
