# Tests of ui/graph.
torchir_ui_test(tst_graphpanel torchir_ui_graph)
torchir_ui_test(tst_nodefinder torchir_ui_graph)

# The ~20k-node program of the benchmarks (bench/make_transformer_like.py writes it there).
set(TORCHIR_BENCH_DIR "$ENV{HOME}/.cache/torchir/bench" CACHE PATH "Folder of the benchmark programs")
torchir_ui_test(tst_graphbig torchir_ui_graph)
set_property(TEST ui.tst_graphbig APPEND PROPERTY ENVIRONMENT "TORCHIR_BENCH=${TORCHIR_BENCH_DIR}")
