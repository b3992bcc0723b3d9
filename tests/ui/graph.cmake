# Tests of ui/graph.
