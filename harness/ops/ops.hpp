// The declarations of the catalog, one function per op; catalog.cpp lists them.
#pragma once

#include "konform/op.hpp"

namespace konform::ops {

OpSpec rmsnorm();
OpSpec rope();
OpSpec silu_mul();
OpSpec embedding();
OpSpec add();
OpSpec argmax();

}  // namespace konform::ops
