# Sourced by the PyTorch tests: sets PY to the first Python with torch and numpy among
# $SY_PYTHON, /usr/bin/python3 (Debian's python3-torch) and python3, or exits 77 (the
# ctest skip code) when there is none.
PY=
for candidate in ${SY_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null &&
    "$candidate" -c 'import torch, numpy' >/dev/null 2>&1; then
    PY=$candidate
    break
  fi
done
if [ -z "$PY" ]; then
  echo "skip: PyTorch is not installed (no torch and numpy in \$SY_PYTHON, /usr/bin/python3"
  echo "      or python3; apt-get install python3-torch, or pip install torch numpy)"
  exit 77
fi
echo "using $PY: PyTorch $("$PY" -c 'import torch; print(torch.__version__)')"
