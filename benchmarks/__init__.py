"""Studies and benchmarks of pymc-vsk: calibration, jump recovery, performance and scale."""
