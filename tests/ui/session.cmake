# Tests of ui/session.
torchir_ui_test(tst_programfiles torchir_ui_session)
torchir_ui_test(tst_breakpointstore torchir_ui_session)
torchir_ui_test(tst_sessioncontroller torchir_ui_session)
set_tests_properties(ui.tst_sessioncontroller PROPERTIES FIXTURES_REQUIRED bench_program)  # and the 20k-node program
torchir_ui_test(tst_executionactions torchir_ui_session)
