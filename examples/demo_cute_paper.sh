#!/usr/bin/env bash
# Placeholder for the CuTe-paper walkthrough: scripts/demo.sh runs this with
# AXE set to the CLI of the release build.
set -euo pipefail
AXE=${AXE:-build/release/axe}
"$AXE" --help
