#!/bin/sh
# Install axe-core (pinned in tests/a11y/package.json, from the npm registry) for the accessibility audit of
# the web pages (tests/api/browser/a11y.rs). Safe to run again: npm keeps what is already installed.
set -eu
cd "$(dirname "$0")/../tests/a11y"
if [ -f node_modules/axe-core/axe.min.js ]; then
    echo "axe-core already installed"
    exit 0
fi
npm ci --no-audit --no-fund --silent
