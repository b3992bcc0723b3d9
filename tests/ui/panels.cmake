# Tests of ui/panels.
torchir_ui_test(tst_arguments torchir_ui_panels)
torchir_ui_test(tst_tensor torchir_ui_panels)
torchir_ui_test(tst_diagnosis torchir_ui_panels)
torchir_ui_test(tst_cachedtextdelegate torchir_ui_panels)
