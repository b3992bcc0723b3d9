#pragma once
#include <string>

namespace torchir {

/// A symbolic size as people read it: sympy's srepr (`Symbol('s77', positive=True, integer=True)`,
/// `Mul(Integer(2), Symbol('s0', ...))`) becomes `s77`, `2*s0`. Text that is not srepr is kept.
std::string readableSymbolExpr(const std::string& srepr);

}  // namespace torchir
