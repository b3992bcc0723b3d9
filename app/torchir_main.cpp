// The headless consumer of the core: proves the core needs no UI.
#include "cli/Cli.h"
#include "formats/AllocatorTuning.h"

int main(int argc, char** argv) {
  torchir::tuneAllocator();
  return torchir::cli::run(argc, argv);
}
