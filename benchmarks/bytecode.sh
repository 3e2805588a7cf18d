# Sourced by the benchmarks that time whole processes: the package's bytecode compiled, as a regular pip install
# leaves it (an editable install writes it at a first import instead). The project's machines set
# PYTHONDONTWRITEBYTECODE, which would make every timed process compile the package's sources again (about 0.6 s
# on the GPU machine's host): a cost no user pays after the first run, so it is unset here.
unset PYTHONDONTWRITEBYTECODE
python3 -m compileall -q $(python3 -c "
import os, cuzk, cuzk.backends, cuzk.conformance, cuzk.reference
print(' '.join(os.path.dirname(m.__file__) for m in (cuzk, cuzk.backends, cuzk.conformance, cuzk.reference)))
") > /dev/null
