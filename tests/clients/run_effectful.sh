#!/usr/bin/env bash
# effectful's own LLM tests (tests/test_handlers_llm*.py) against safe-eval, in one command:
#
#   tests/clients/run_effectful.sh            # with SafeEvalProvider swapped in for both stock providers
#   tests/clients/run_effectful.sh stock      # the same tests with effectful's stock providers
#
# Clones effectful at a pinned commit into a scratch directory, makes a Python >= 3.12 virtualenv
# there with effectful[llm] and this checkout of safe-eval, and runs pytest. The recorded LLM
# replies are effectful's own fixtures: no API key or network is needed once installed.
# Environment: PYTHON (default python3.12), EFFECTFUL_REPO (a URL or a local clone),
# WORKDIR (default a fresh temporary directory), extra pytest arguments after the mode.
# --timeout: without network one of effectful's provider tests waits on litellm's retries
# (with either provider); it fails at 90 s instead of stalling the run.
set -euo pipefail
MODE=${1:-safe-eval}
shift || true
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EFFECTFUL_REF=003b74aea97866e7219efa861ed77df176638ee3  # main of 2026-07-22 (effectful 0.4.0's code)
EFFECTFUL_REPO=${EFFECTFUL_REPO:-https://github.com/BasisResearch/effectful}
PYTHON=${PYTHON:-python3.12}
WORKDIR=${WORKDIR:-$(mktemp -d)}

if [ ! -d "$WORKDIR/effectful" ]; then
    git clone -q "$EFFECTFUL_REPO" "$WORKDIR/effectful"
fi
git -C "$WORKDIR/effectful" checkout -q "$EFFECTFUL_REF"
if [ ! -x "$WORKDIR/venv/bin/python" ]; then
    "$PYTHON" -m venv "$WORKDIR/venv"
    "$WORKDIR/venv/bin/pip" install -q -e "$ROOT" -e "$WORKDIR/effectful[llm]" pytest pytest-timeout
fi

PLUGIN=()
if [ "$MODE" != stock ]; then
    PLUGIN=(-p effectful_swap)
fi
cd "$WORKDIR/effectful"
# LITELLM_LOCAL_MODEL_COST_MAP: litellm otherwise fetches its price table at import
PYTHONPATH="$ROOT/tests/clients" LITELLM_LOCAL_MODEL_COST_MAP=True \
    "$WORKDIR/venv/bin/python" -m pytest tests/test_handlers_llm*.py -o addopts="" -p no:cacheprovider \
    --timeout 90 "${PLUGIN[@]}" -q -rfE "$@"
