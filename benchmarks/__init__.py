"""Speed and retrieval-quality benchmarks for tocsearch.

Run the scripts directly (``python benchmarks/bench_speed.py``,
``python benchmarks/eval_locomo.py``); the modules form a package so that ``tests/benchmarks``
can test the harness itself.
"""
