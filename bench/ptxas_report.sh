#!/usr/bin/env bash
# Prints one line per kernel entry of a PTX file from `ptxas -v`: registers, shared memory,
# stack frame and spills. Usage: ptxas_report.sh FILE.ptx [ARCH] [PTXAS]
set -euo pipefail
ptx=$1
arch=${2:-sm_90}
ptxas=${3:-ptxas}
"$ptxas" -arch="$arch" -v "$ptx" -o /dev/null 2>&1 | awk '
  /Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); entry = substr($0, RSTART + 1, RLENGTH - 2); want = 1; next }
  /Function properties for/ { props = ($0 ~ ("for " entry "$")); next }
  /bytes stack frame/ && want && props { sub(/^[ \t]+/, ""); frame = $0; next }
  /Used [0-9]+ registers/ && want {
    sub(/.*Used/, "Used");
    printf "| %s | %s | %s |\n", entry, $0, frame;
    want = 0; frame = ""
  }'
