# Tests of ui/graph.
torchir_ui_test(tst_graphpanel torchir_ui_graph)
torchir_ui_test(tst_nodefinder torchir_ui_graph)
torchir_ui_test(tst_graphbig torchir_ui_graph)  # the ~20k-node program in TORCHIR_BENCH
set_tests_properties(ui.tst_graphbig PROPERTIES FIXTURES_REQUIRED bench_program)
