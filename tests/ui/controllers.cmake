# Tests of ui/controllers.
torchir_ui_test(tst_editandcontinue torchir_ui_controllers)
