# Tests of ui/session.
