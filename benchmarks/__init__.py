"""quivira's benchmarks: the same mechanisms in quivira and its peers, timed in fresh processes.

Run each benchmark as a module from the repository root, e.g. ``python -m benchmarks.run
--quick``: the repository (``quivira``, ``quivira_oracles``, ``benchmarks``) is then on the path
without being installed. The pieces every benchmark shares (a case in a subprocess, medians and
paired rounds, machine information, the results files) are :mod:`benchmarks.harness`; the
peers' model builders are :mod:`quivira_oracles.peers`, shared with the tests.
"""
