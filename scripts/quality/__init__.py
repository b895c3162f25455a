"""The retrieval-quality data set (see scripts/bench_quality.py)."""
