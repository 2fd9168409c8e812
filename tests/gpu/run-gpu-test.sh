#!/usr/bin/env bash
# Runs a GPU test binary, or reports it skipped (exit 77, which ctest shows as "Skipped")
# when this machine has no usable GPU.
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED: no GPU on this machine ($*)"
  exit 77
fi
exec "$@"
