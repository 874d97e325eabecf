# LambdaRAG: `make serve` and `make test` set everything up on a machine with only python3.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8080
DOMAIN ?= demo

.PHONY: serve test lint demo bench eval eval-tune eval-ci clean

$(VENV)/.installed-serve: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[local-embeddings,demo]'
	touch $@

$(VENV)/.installed-test: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[local-embeddings,demo,eval,test,milvus]'
	touch $@ $(VENV)/.installed-serve

## serve: build the bundled demo domain (incremental) and serve it on 127.0.0.1:$(PORT)
serve: $(VENV)/.installed-serve
	$(PY) -m lambdarag demo
	$(PY) scripts/app.py --domain $(DOMAIN) --port $(PORT)

## demo: (re)generate and build the demo domain only
demo: $(VENV)/.installed-serve
	$(PY) -m lambdarag demo

## test: the default test tier (offline, a few minutes on 2 cores)
test: $(VENV)/.installed-test
	$(VENV)/bin/pytest -q

## bench: benchmarks against references measured in the same run (figures into BENCHMARKS.md)
bench: $(VENV)/.installed-test
	$(PY) bench/bench_bm25.py
	$(PY) bench/bench_vector.py
	$(PY) bench/bench_extract.py
	$(PY) bench/bench_build.py --write
	$(PY) bench/bench_learned.py
	$(PY) bench/bench_milvus.py --sizes 10000   # docs/SCALING.md's 100k row: --sizes 10000,100000 (about 20 min)
	$(PY) bench/bench_scale.py  # 10k chunks + the query-embedding check; --sizes 10000,100000 --cache-dir DIR for 100k

## eval-ci: the eval test tier (small real subsets of ../shared/evaldata; skipped when absent)
eval-ci: $(VENV)/.installed-test
	$(VENV)/bin/pytest -q -m eval

## eval: every development set with its quality targets (exit 1 when a target is missed; the first run embeds
##       financebench_dev locally, about an hour, then the embedding cache in workspace/eval-cache/ serves it)
EVALDATA ?= ../shared/evaldata
eval: $(VENV)/.installed-test
	status=0; \
	$(PY) -m lambdarag eval --dataset $(EVALDATA)/domainrag_ruc --target recall@5=0.80 --target answer_in_context=0.85 \
		--target 'mrr@10>baseline' --target 'mrr@10>best_channel' \
		--target extractive_hit=0.70 --target extractive_hit=lead+0.15 --target answer_chars_p50=300 || status=1; \
	$(PY) -m lambdarag eval --dataset $(EVALDATA)/cmrc2018_dev --target recall@1=0.97 \
		--target 'mrr@10>baseline' --target 'mrr@10>best_channel' --target extractive_hit=lead+0.15 || status=1; \
	$(PY) -m lambdarag eval --dataset $(EVALDATA)/financebench_dev --target mrr@10=baseline+0.10 \
		--target 'mrr@10>best_channel' || status=1; \
	exit $$status

## eval-tune: the tuning loop on every development set: lambdarag tune on a seeded 30% of the questions, the
##       untuned and the tuned system measured on the other 70% in the same run (issue 13's targets)
eval-tune: $(VENV)/.installed-test
	status=0; \
	for set in domainrag_ruc cmrc2018_dev; do \
		$(PY) -m lambdarag eval --dataset $(EVALDATA)/$$set --no-ablations --tune-split 0.3 \
			--target 'tuned:mrr@10=full+0.03' || status=1; \
	done; \
	$(PY) -m lambdarag eval --dataset $(EVALDATA)/financebench_dev --no-ablations --tune-split 0.3 \
		--target 'tuned:mrr@10=full' || status=1; \
	exit $$status

## lint: ruff and mypy
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) build *.egg-info
