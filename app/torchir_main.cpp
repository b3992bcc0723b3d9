// The headless consumer of the core: proves the core needs no UI.
#include "cli/Cli.h"

int main(int argc, char** argv) { return torchir::cli::run(argc, argv); }
