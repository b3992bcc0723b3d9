// sympy srepr text of symbolic sizes (`Mul(Integer(2), Symbol('s0', positive=True))`).
#include <string>

#include "program/SymbolExpr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::readableSymbolExpr(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
