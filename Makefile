# Benchmarks: one command regenerates docs/benchmarks.md (see that page).
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
NICE ?= nice -n 10

.PHONY: bench bench-quick bench-report

bench:        ## every benchmark at full size, then docs/benchmarks.md and docs/img/
	$(NICE) $(PYTHON) bench/suite.py

bench-quick:  ## the same pipeline at small sizes -> bench/results/quick/benchmarks.md
	$(NICE) $(PYTHON) bench/suite.py --quick

bench-report: ## re-render docs/benchmarks.md from the JSON already in bench/results/
	$(PYTHON) bench/report.py
