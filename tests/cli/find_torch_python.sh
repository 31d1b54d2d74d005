# Sourced by the PyTorch tests: sets PY to the first Python with torch and numpy (and
# the modules listed in $PY_EXTRA_MODULES, comma-separated: "transformers") among
# $SY_PYTHON, /usr/bin/python3 (Debian's python3-torch) and python3, or exits 77 (the
# ctest skip code) when there is none.
PY=
modules="torch, numpy${PY_EXTRA_MODULES:+, $PY_EXTRA_MODULES}"
for candidate in ${SY_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null &&
    "$candidate" -c "import $modules" >/dev/null 2>&1; then
    PY=$candidate
    break
  fi
done
if [ -z "$PY" ]; then
  echo "skip: no Python with $modules (in \$SY_PYTHON, /usr/bin/python3 or python3;"
  echo "      apt-get install python3-torch, or pip install ${modules//,/})"
  exit 77
fi
echo "using $PY: PyTorch $("$PY" -c 'import torch; print(torch.__version__)')"
