# Real third-party files for shell tests (sh_test), the shell twin of
# tests/util/reference_data.h. Source it after check.sh; the test lists the folder in its data
# ("@edgeq_refdata//:models", ":vocab" or ":npm").
#   reference_data_dir FOLDER   prints the folder's path inside the runfiles. If it is missing
#                               (a clone without ../shared), the whole test ends here: it prints
#                               "SKIPPED: <reason>" and exits (0 unless a check before it
#                               failed), or fails (exit 1) when
#                               EDGEQ_REQUIRE_REFERENCE_DATA=1 (CI). Call it at top level, not in
#                               $( ): use `reference_data_dir models; models=$REPLY`.
reference_data_dir() {
  local folder="$1" repo="$TEST_SRCDIR/edgeq_refdata"
  if [ -f "$repo/$folder.MISSING" ] || [ ! -d "$repo/$folder" ]; then
    local why="not in this test's runfiles (add @edgeq_refdata//:$folder to its data)"
    [ -f "$repo/$folder.MISSING" ] && why=$(cat "$repo/$folder.MISSING")
    if [ "${EDGEQ_REQUIRE_REFERENCE_DATA:-0}" = 1 ]; then
      echo "FAIL: reference data '$folder' unavailable: $why (EDGEQ_REQUIRE_REFERENCE_DATA=1)"
      exit 1
    fi
    echo "SKIPPED: reference data '$folder' unavailable: $why"
    # Checks made before this point still count.
    [ "${fails:-0}" -eq 0 ]
    exit
  fi
  REPLY="$repo/$folder"
}

#   require_node               ends the test unless node is on PATH: "SKIPPED: ..." (exit 0), or a
#                               failure when EDGEQ_REQUIRE_REFERENCE_DATA=1 (CI installs node
#                               through tools/setup.sh).
require_node() {
  command -v node >/dev/null && return 0
  if [ "${EDGEQ_REQUIRE_REFERENCE_DATA:-0}" = 1 ]; then
    echo "FAIL: node is not installed (tools/setup.sh installs it; EDGEQ_REQUIRE_REFERENCE_DATA=1)"
    exit 1
  fi
  echo "SKIPPED: node is not installed (tools/setup.sh installs it)"
  [ "${fails:-0}" -eq 0 ]
  exit
}

#   native_command BINARY      sets REPLY to a command that runs BINARY here: BINARY itself, or
#                               under --config=aarch64 (EDGEQ_EXEC set: tools/qemu_aarch64.sh)
#                               a wrapper script in TEST_TMPDIR that runs it through EDGEQ_EXEC,
#                               for programs (node) that start the binary themselves.
native_command() {
  if [ -z "${EDGEQ_EXEC:-}" ]; then REPLY="$1"; return; fi
  REPLY="$TEST_TMPDIR/$(basename "$1").qemu"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$(readlink -f "$EDGEQ_EXEC")" "$(readlink -f "$1")" \
    >"$REPLY"
  chmod +x "$REPLY"
}
