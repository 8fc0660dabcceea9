# Sourced by ./javelin, ./run-tests and .ci/run: selects a JDK >= 22 and exports JAVA_HOME.
# Order: $JAVA_HOME if new enough, then well-known install locations (newest first).

javelin_java_major() { # prints the feature version of the JDK at $1, or nothing
  local java="$1/bin/java"
  [ -x "$java" ] || return 0
  "$java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

javelin_find_jdk() {
  local min=22 candidate major
  if [ -n "${JAVA_HOME:-}" ]; then
    major=$(javelin_java_major "$JAVA_HOME")
    if [ -n "$major" ] && [ "$major" -ge "$min" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
      export JAVA_HOME; return 0
    fi
  fi
  # JAVELIN_JDK_CANDIDATES (space-separated) replaces the built-in list; used by tests of this script.
  local candidates="${JAVELIN_JDK_CANDIDATES:-/usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/lib/jvm/* $HOME/.sdkman/candidates/java/* $HOME/.jdks/*}"
  for candidate in $candidates; do
    [ -d "$candidate" ] || continue
    major=$(javelin_java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge "$min" ] && [ -x "$candidate/bin/javac" ]; then
      export JAVA_HOME="$candidate"; return 0
    fi
  done
  echo "javelin: no JDK >= $min found. Set JAVA_HOME to a JDK 25 (e.g. Temurin 25) or install one" >&2
  echo "         under /usr/lib/jvm. Checked: \$JAVA_HOME='${JAVA_HOME:-}', /usr/lib/jvm/*, /opt/java/*, ~/.sdkman, ~/.jdks." >&2
  return 1
}
