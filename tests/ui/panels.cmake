# Tests of ui/panels.
