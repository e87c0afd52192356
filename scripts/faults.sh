#!/usr/bin/env bash
# The fault suite against the release binary (see scripts/faults/run.py for the scenarios).
#   scripts/faults.sh                         quick variant, every scenario (CI)
#   scripts/faults.sh documents               one scenario
#   FAULTS_LONG=1 scripts/faults.sh           full sizes (3,000 crawlers, 200,000 documents)
#   FAULTS_SOAK_SECONDS=1800 scripts/faults.sh soak    the 30-minute soak
#   FAULTS_PROFILE=ci-faults scripts/faults.sh  built with another Cargo profile (CI's: no cross-crate LTO)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${FAULTS_BIN:-}" ]]; then
  profile="${FAULTS_PROFILE:-release}"
  cargo build --profile "$profile" --quiet --bin deskgraph
  export FAULTS_BIN="$PWD/target/$profile/deskgraph"
fi
exec python3 scripts/faults/run.py "$@"
