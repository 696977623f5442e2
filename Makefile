# One entry point for users and CI. Everything runs inside .venv, created on demand,
# so a fresh machine needs only Python 3 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run demo test lint bench docs clean browser r-extra compiler

# The compiler is looked for only when the package is (re)built, so that a target
# run on an installed venv prints nothing about it.
$(STAMP): pyproject.toml setup.py $(wildcard skggm_bench/*/*.pyx)
	$(find_compiler)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e ".[test,plot,bench,compat]"
	touch $(STAMP)

install: $(STAMP)

# The main job: the default ("quick") benchmark study, then its HTML report.
# skggm-bench lives in .venv/bin, which is not on the PATH: the commands shown
# are given with that path. `skggm-bench run` alone suggests its next commands
# (leaderboard, report) on stdout, the only thing it writes there; here the
# report is made at once, so those lines are dropped and the commands that show
# the results again are said after it.
run: $(STAMP)
	$(BIN)/skggm-bench run >/dev/null
	$(BIN)/skggm-bench report
	@echo "again: $(BIN)/skggm-bench leaderboard"
	@echo "       $(BIN)/skggm-bench report"

demo: $(STAMP)
	$(BIN)/python -m skggm_bench.demo

# mypy checks the modules listed under [tool.mypy] in pyproject.toml (strict);
# its cache lives in .venv, so a second run takes a few seconds.
lint: $(STAMP)
	$(BIN)/ruff check skggm_bench tests examples
	$(BIN)/ruff format --check skggm_bench tests examples
	$(BIN)/mypy

# One BLAS thread per process in tests: batched small LAPACK calls are up to 40x
# slower with threads competing on a busy 2-core machine, and the harness's own
# parallelism (joblib) is what the tests exercise.
# Coverage of the package is measured in the same run and reported file by file;
# the run fails under the floor set in pyproject.toml ([tool.coverage.report]).
# The tests run in one process per core, at most 4 (pytest-xdist): many of them
# wait on child processes, so 2 cores give about 1.7x; more would only crowd the
# tests that time their workers. worksteal evens out the long tests at the end.
test: $(STAMP) lint browser r-extra
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -q \
		--numprocesses=auto --maxprocesses=4 --dist=worksteal --cov --cov-report=term

# The pytest-benchmark suite, then the scripts that print the ratio tables of
# docs/performance.md (each script's docstring says what it measures).
bench: $(STAMP)
	$(BIN)/python -m pytest -o addopts="" tests/benchmarks/test_bench_suite.py -q
	for script in tests/benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

# The report's browser test needs Debian's headless chromium. Installed here with
# apt-get where that is possible (root, or password-less sudo); elsewhere the test
# is skipped and says why.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "browser: no apt-get here; the report's browser test will be skipped"; \
	else \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo -n"; fi; \
		{ $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo \
			apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
		|| echo "browser: could not install chromium; the report's browser test will be skipped"; \
	fi

# The R tests need the r extra (rpy2), installed here where R is (Rscript on the
# PATH) and rpy2 is not yet; elsewhere they skip, each saying what is missing.
r-extra: $(STAMP)
	@if command -v Rscript >/dev/null 2>&1 && ! $(BIN)/python -c "import rpy2" 2>/dev/null; then \
		$(BIN)/python -m pip install -q -e ".[r]" \
		|| echo "r-extra: rpy2 did not install; the R tests will skip with the reason"; \
	fi

# The graphical lasso's kernel is compiled from Cython at install: it needs a C
# compiler and Python's headers. Installed with apt-get where missing and
# possible (root, or password-less sudo), like chromium below.
define find_compiler
	@if $(PYTHON) -c "import os, shutil, sys, sysconfig; \
		sys.exit(not (shutil.which((sysconfig.get_config_var('CC') or 'cc').split()[0]) \
		and os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))))"; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "compiler: no C compiler or Python headers, and no apt-get: install them to build the package"; \
	else \
		if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo -n"; fi; \
		{ $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo \
			apt-get install -y -qq --no-install-recommends gcc python3-dev >/dev/null; } \
		|| echo "compiler: could not install gcc and python3-dev; the build will say what is missing"; \
	fi
endef

compiler:
	$(find_compiler)

clean:
	rm -rf $(VENV) build *.egg-info skggm_bench/learners/_glasso_descent.c \
		skggm_bench/learners/_glasso_descent.*.so \
		skggm_bench/learners/_lasso_descent.c skggm_bench/learners/_lasso_descent.*.so \
		skggm_bench/learners/_active_set_kernel.c \
		skggm_bench/learners/_active_set_kernel.*.so \
		skggm_bench/learners/_clime_simplex.c skggm_bench/learners/_clime_simplex.*.so \
		skggm_bench/learners/_lasso_paths.c skggm_bench/learners/_lasso_paths.*.so \
		skggm_bench/generators/_completion_sweep.c \
		skggm_bench/generators/_completion_sweep.*.so

docs: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[docs]"
	SKGGM_DOCS_FAST=1 $(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
