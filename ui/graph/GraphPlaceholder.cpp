// Replaced by the graph view sources.
