// The headless consumer of the core: proves the core needs no UI.
#include "cli/Cli.h"
#include "program/AllocatorTuning.h"

int main(int argc, char** argv) {
  torchir::tuneAllocatorForLargePrograms();
  return torchir::cli::run(argc, argv);
}
